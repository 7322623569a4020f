-- The name of one run.
-- Inputs: runs.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: rows, one when the run exists:
--   name VARCHAR: its name
SELECT name FROM runs WHERE run_id = $run_id;
