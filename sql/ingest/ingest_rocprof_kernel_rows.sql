-- The kernel rows of a run just inserted (a GPU agent of a rocprofv3 file with none is refused).
-- Inputs: kernels_raw.
-- Parameters:
--   $r INTEGER: the run
-- Output: rows, one: the count (BIGINT).
SELECT count(*) FROM kernels_raw WHERE run_id = $r;
