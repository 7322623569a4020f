-- The communication ops of each run of a job (report collectives says which run has none).
-- Inputs: TEMP _coll_ops.
-- Parameters: none.
-- Output: rows, one per run with a communication op: its run_id (INTEGER) and count of ops (BIGINT).
SELECT run_id, count(*) FROM _coll_ops GROUP BY run_id;
