-- The distinct user annotation names of each of some runs (module_tree.py finds the layer ranges among
-- them, matching its pattern once per name).
-- Inputs: host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per (run, annotation name):
--   run_id INTEGER: the run
--   name VARCHAR: the annotation name
SELECT DISTINCT run_id, name FROM host_events WHERE run_id IN (SELECT unnest($run_ids)) AND cat = 'user_annotation';
