-- Report `compare` as tidy rows (csv, json): one row per aligned key and run, in key order.
-- Placeholder `roofline_columns` (tracedb.engine.reports.compare): --roofline's tflops_s and pct_peak, else empty.
-- Inputs: _cmp (compare_align.sql), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order within a key
-- Output: rows, one per (key, run); see compare_align.sql:
--   pass VARCHAR: a number, or steady / auto
--   layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
--   category VARCHAR: key by category or kernel
--   module VARCHAR: key by module (or by kernel within module roles)
--   ordinal BIGINT: key by kernel
--   run VARCHAR: the run's name
--   name VARCHAR: the kernel's name, by kernel
--   kernels HUGEINT: the key's kernels
--   sum_us DECIMAL(23,3): their time
--   delta_us DECIMAL(23,3): against the first run
--   ratio DECIMAL(12,3): against the first run
--   [tflops_s] DECIMAL(18,3): --roofline: the key's FLOPs / the time of its kernels with FLOPs, TFLOP/s
--   [pct_peak] DECIMAL(7,1): --roofline: its ideal time at the device's peak over its measured time, %; empty above
--     100 % (a wrong shape, dtype or peak: report roofline flags it)
--   aligned BOOLEAN: every run has the key
--   unit VARCHAR: prologue | layer | epilogue
SELECT c.pass, c.layer, c.category, c.module, c.ordinal, r.name AS run, c.name, c.n_total AS kernels,
    us(c.ns) AS sum_us, us(c.delta_ns) AS delta_us, c.ratio,{roofline_columns} c.aligned, coalesce(c.unit, 'layer') AS unit
FROM _cmp c JOIN runs r USING (run_id)
ORDER BY c.pass_ord, c.unit IS NOT DISTINCT FROM 'epilogue', c.layer NULLS FIRST, c.category NULLS FIRST, c.module NULLS FIRST, c.ordinal NULLS FIRST,
    list_position($run_ids, c.run_id);
