-- The name of each of some runs (notes, errors and report parameters name runs by name).
-- Inputs: runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids:
--   run_id INTEGER: the run
--   name VARCHAR: its name
SELECT run_id, name FROM runs WHERE run_id IN (SELECT unnest($run_ids));
