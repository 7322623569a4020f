-- Report `compare --pass mean` as tidy rows (csv, json): one row per aligned key and run, the mean over
-- the run's selected passes (--layer mean: full layers), a pass without the key counting 0, so a run's rows
-- add up to its mean pass. Inputs: _cmp (compare_align.sql), runs. Parameters: $run_ids.
-- Columns: pass ('mean'), layer, category, module, ordinal, run, name, passes (how many of the averaged
--   passes have the key), kernels (mean, 1 decimal), sum_us (mean, exact to the ns), sum_min_us, sum_max_us, delta_us, ratio
--   (of the means, against the first run), aligned.
SELECT c.pass, c.layer, c.category, c.module, c.ordinal, r.name AS run, c.name, c.passes,
    mean1(c.n_total, c.units) AS kernels, us(c.ns) AS sum_us, us(c.min_ns) AS sum_min_us, us(c.max_ns) AS sum_max_us,
    us(c.delta_ns) AS delta_us, c.ratio, c.aligned
FROM _cmp c JOIN runs r USING (run_id)
ORDER BY c.layer NULLS FIRST, c.category NULLS FIRST, c.module NULLS FIRST, c.ordinal NULLS FIRST,
    list_position($run_ids, c.run_id);
