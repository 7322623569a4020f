-- Where the bytes of HCCL instances come from: the instances with only the profiler's transit bytes, and those
-- with no bytes at all (the notes of report collectives).
-- Inputs: TEMP _coll_match.
-- Parameters: none.
-- Output: rows, one: the instances with profiled bytes only, the instances with none (each BIGINT).
SELECT count(*) FILTER (WHERE nb IS NULL AND pb IS NOT NULL),
count(*) FILTER (WHERE nb IS NULL AND pb IS NULL)
FROM (SELECT grp, mkey, max(nbytes) AS nb, max(prof_bytes) AS pb FROM _coll_match WHERE grp_source = 'hccl'
GROUP BY ALL);
