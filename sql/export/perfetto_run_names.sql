-- Export perfetto: the names of the runs a selection matches when it is not one run (for the error).
-- Inputs: runs (schema.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run in run order: its name.
SELECT name FROM runs WHERE run_id IN (SELECT unnest($run_ids)) ORDER BY run_id;
