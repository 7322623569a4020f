-- Report `compare` as tidy rows (csv, json): one row per aligned key and run, in key order.
-- Inputs: _cmp (compare_align.sql), runs. Parameters: $run_ids.
-- Columns: pass (a number, or steady), layer, category, module, ordinal, run, name, kernels, sum_us,
--   delta_us, ratio, aligned (see compare_align.sql; delta and ratio against the first run).
SELECT c.pass, c.layer, c.category, c.module, c.ordinal, r.name AS run, c.name, c.n_total AS kernels,
    us(c.ns) AS sum_us, us(c.delta_ns) AS delta_us, c.ratio, c.aligned
FROM _cmp c JOIN runs r USING (run_id)
ORDER BY c.pass_ord, c.layer NULLS FIRST, c.category NULLS FIRST, c.module NULLS FIRST, c.ordinal NULLS FIRST,
    list_position($run_ids, c.run_id);
