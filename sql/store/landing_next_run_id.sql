-- The run id the first of the runs merged into the store gets (read before a replaced run is deleted: its id
-- is not reused).
-- Inputs: runs.
-- Parameters: none.
-- Output: rows, one: the next run id (INTEGER, 1 in a store of no run).
SELECT coalesce(max(run_id), 0) + 1 FROM runs;
