-- Export `perfetto`: where to cut a run's device activities and host events into slices of seq, so that
-- each slice's JSON text is built, written and dropped before the next (a run of 2M kernels would
-- otherwise be ~1 GB of text in memory at once).
-- Inputs: kernels, host_events.
-- Parameters:
--   $run_id INTEGER: the run
--   $size BIGINT: events per slice
-- Output: rows, one per slice, in order:
--   source VARCHAR: device or host
--   lo BIGINT: the slice's first seq
--   hi BIGINT: the next slice's first seq (NULL: the last slice)
WITH cuts AS (
    SELECT 'device' AS source, seq, row_number() OVER (ORDER BY seq) AS n FROM kernels WHERE run_id = $run_id
    UNION ALL
    SELECT 'host', seq, row_number() OVER (ORDER BY seq) FROM host_events WHERE run_id = $run_id
), firsts AS (
    SELECT source, seq AS lo FROM cuts WHERE (n - 1) % $size = 0
)
SELECT source, lo, lead(lo) OVER (PARTITION BY source ORDER BY lo) AS hi
FROM firsts
ORDER BY source = 'host', lo;
