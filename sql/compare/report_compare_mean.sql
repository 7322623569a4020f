-- Report `compare --pass mean` as tidy rows (csv, json): one row per aligned key and run, the mean over
-- the run's selected passes (--layer mean: full layers), a pass without the key counting 0, so a run's rows
-- add up to its mean pass.
-- Placeholder `roofline_columns` (tracedb.engine.reports.compare): --roofline's tflops_s and pct_peak, else empty.
-- Inputs: _cmp (compare_align.sql), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order within a key
-- Output: rows, one per (key, run); see compare_align.sql:
--   pass VARCHAR: 'mean'
--   layer BIGINT: the layer; NULL: the prologue or the epilogue (unit), or with --layer mean every layer
--   category VARCHAR: key by category or kernel
--   module VARCHAR: key by module (or by kernel within module roles)
--   ordinal BIGINT: key by kernel
--   run VARCHAR: the run's name
--   name VARCHAR: the kernel's name, by kernel
--   passes BIGINT: how many of the averaged passes have the key
--   kernels DECIMAL(18,1): mean kernel count, 1 decimal
--   sum_us DECIMAL(23,3): mean time, exact to the ns
--   sum_min_us DECIMAL(38,3): the smallest time over the averaged passes
--   sum_max_us DECIMAL(38,3): the largest time over the averaged passes
--   delta_us DECIMAL(23,3): of the means, against the first run
--   ratio DECIMAL(12,3): of the means, against the first run
--   [tflops_s] DECIMAL(18,3): --roofline: the key's FLOPs / the time of its kernels with FLOPs, TFLOP/s
--   [pct_peak] DECIMAL(7,1): --roofline: its ideal time at the device's peak over its measured time, %; empty
--     above 100 % (a wrong shape, dtype or peak: report roofline flags it)
--   aligned BOOLEAN: every run has the key
--   unit VARCHAR: prologue | layer | epilogue (with --layer mean: layer)
SELECT c.pass, c.layer, c.category, c.module, c.ordinal, r.name AS run, c.name, c.passes,
    mean1(c.n_total, c.units) AS kernels, us(c.ns) AS sum_us, us(c.min_ns) AS sum_min_us, us(c.max_ns) AS sum_max_us,
    us(c.delta_ns) AS delta_us, c.ratio,{roofline_columns} c.aligned, coalesce(c.unit, 'layer') AS unit
FROM _cmp c JOIN runs r USING (run_id)
ORDER BY c.unit IS NOT DISTINCT FROM 'epilogue', c.layer NULLS FIRST, c.category NULLS FIRST, c.module NULLS FIRST, c.ordinal NULLS FIRST,
    list_position($run_ids, c.run_id);
