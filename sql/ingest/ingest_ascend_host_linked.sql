-- The kernels of an Ascend CSV run that were linked to their host launch, and all its kernels (a host side that
-- links none is left out).
-- Inputs: kernels_raw_ascend_csv.
-- Parameters:
--   $r INTEGER: the run
-- Output: rows, one: the kernels with a correlation id and all kernels of the run (each BIGINT).
SELECT count(correlation_id), count(*) FROM kernels_raw_ascend_csv
WHERE run_id = $r;
