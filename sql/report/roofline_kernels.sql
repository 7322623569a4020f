-- The roofline of each assigned kernel: its work (kernel_work) and the time it would take at the device's
-- peak, for report roofline and report layers --roofline. A kernel's ideal time is the longer of flops / peak
-- FLOP/s (the peak of its dtype, else the run's dtype-free peak: --peak-tflops) and bytes / peak bytes/s.
-- Inputs: _assigned, kernel_work, TEMP _peaks (run_id INTEGER, device VARCHAR, dtype VARCHAR, flops_s DOUBLE,
--   bytes_s DOUBLE: engine/reports/peaks.py; dtype NULL: every dtype).
-- Parameters: none.
-- Output: TEMP _rl_kernels, one row per assigned kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   flops BIGINT: its FLOPs (kernel_work), NULL when unknown
--   bytes BIGINT: its bytes, NULL when unknown
--   flops_source VARCHAR: the formula
--   t_flops DOUBLE: flops / peak FLOP/s, seconds; NULL without flops or peak
--   t_bytes DOUBLE: bytes / peak bytes/s, seconds; NULL without bytes or peak
--   rated BOOLEAN: its work is known and every term of it has its peak: its ideal time counts
CREATE OR REPLACE TEMP TABLE _rl_kernels AS
WITH bw AS (
    SELECT run_id, max(bytes_s) AS bytes_s FROM _peaks GROUP BY run_id
)
SELECT a.run_id, a.seq, w.flops, w.bytes, w.flops_source,
    w.flops / coalesce(p.flops_s, pa.flops_s) AS t_flops, w.bytes / bw.bytes_s AS t_bytes,
    (w.flops IS NOT NULL OR w.bytes IS NOT NULL)
        AND (w.flops IS NULL OR coalesce(p.flops_s, pa.flops_s) IS NOT NULL)
        AND (w.bytes IS NULL OR bw.bytes_s IS NOT NULL) AS rated
FROM _assigned a
LEFT JOIN kernel_work w USING (run_id, seq)
LEFT JOIN _peaks p ON p.run_id = a.run_id AND p.dtype = w.dtype
LEFT JOIN _peaks pa ON pa.run_id = a.run_id AND pa.dtype IS NULL
LEFT JOIN bw ON bw.run_id = a.run_id;
