-- Advise rule slow-rank: the selected runs without a job tag, and whether they can be one job's ranks (each of
-- a distinct rank, one world size at most).
-- Inputs: runs (schema.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, exactly one:
--   untagged BIGINT: the runs of $run_ids without a job tag
--   one_job BOOLEAN: their ranks are distinct and they have one world size at most
SELECT count(*) AS untagged, count(DISTINCT rank) = count(*) AND count(DISTINCT world_size) <= 1 AS one_job
FROM runs WHERE run_id IN (SELECT unnest($run_ids)) AND list_extract(map_extract(tags, 'job'), 1) IS NULL;
