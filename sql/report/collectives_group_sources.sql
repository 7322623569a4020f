-- How the groups of a job's communication ops were found (c10d metadata, the stream, HCCL group ids): the
-- notes of report collectives.
-- Inputs: TEMP _coll_ops.
-- Parameters: none.
-- Output: rows, one per grp_source, by it: the grp_source (VARCHAR), its distinct groups and ops (BIGINT).
SELECT grp_source, count(DISTINCT grp), count(*) FROM _coll_ops GROUP BY 1 ORDER BY 1;
