-- The runs of exact names, all looked up at once (a job's 128 rank names are one statement, not 128).
-- Inputs: runs.
-- Parameters:
--   $names VARCHAR[]: run names
-- Output: rows, one per name that exists:
--   name VARCHAR: the run's name
--   run_id INTEGER: the run
SELECT name, run_id FROM runs WHERE name IN (SELECT unnest($names::VARCHAR[]));
