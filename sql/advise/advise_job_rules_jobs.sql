-- Advise: the selected runs with their job tags, in run order (grouped by job in Python).
-- Inputs: _adv_runs (advise_runs.sql).
-- Parameters: none.
-- Output: rows, one per run, in run order:
--   run_id INTEGER: the run
--   job VARCHAR: its job tag; NULL without one
SELECT run_id, job FROM _adv_runs ORDER BY run_id;
