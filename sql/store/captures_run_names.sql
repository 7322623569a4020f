-- The name of every run of the store (the lines of paired graph captures name them; the runs an interrupted
-- folder ingest committed are checked against them).
-- Inputs: runs.
-- Parameters: none.
-- Output: rows, one per run: its run_id (INTEGER) and name (VARCHAR), in no set order.
SELECT run_id, name FROM runs;
