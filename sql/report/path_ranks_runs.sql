-- The selected runs of a critical path (report critical-path, report what-if): their names, ranks and jobs,
-- to choose one rank's path or one path across a job's ranks.
-- Inputs: runs (schema.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run, in run order:
--   name VARCHAR: the run's name
--   rank INTEGER: its rank; NULL when unknown
--   job VARCHAR: its tag job; NULL without one
SELECT name, rank, list_extract(map_extract(tags, 'job'), 1) AS job FROM runs
WHERE run_id IN (SELECT unnest($run_ids)) ORDER BY run_id;
