-- The names and tags of every run, in store order: the run names an error message offers.
-- Inputs: runs.
-- Parameters: none.
-- Output: rows, one per run, by run_id:
--   name VARCHAR: the run's name
--   tags MAP(VARCHAR, VARCHAR): its tags
SELECT name, tags FROM runs ORDER BY run_id;
