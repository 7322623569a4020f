-- Report `kernels --compare-layer L2`: the kernel sets of two layers of the same pass side by side.
-- Kernels are keyed by short name (kernel_names) and category.
-- Inputs: _assigned, kernels, kernel_names, _rules, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $layer INTEGER: layer a
--   $layer_b INTEGER: layer b
-- Output: rows, one per (run, pass, kernel, category):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   kernel VARCHAR: short name (kernel_names; else the simple name of its op type)
--   category VARCHAR: its category
--   count_a BIGINT: kernels in layer a
--   sum_us_a DECIMAL(38,3): their time
--   count_b BIGINT: kernels in layer b
--   sum_us_b DECIMAL(38,3): their time
--   delta_us DECIMAL(38,3): b - a
--   present_in VARCHAR: 'a', 'b' or 'both'
WITH sel AS (
    SELECT a.run_id, a.pass, a.layer, a.dur_ns, coalesce(kn.short_name, simple_name(k.op_type)) AS kernel, c.category
    FROM _assigned a JOIN kernels k USING (run_id, seq)
    LEFT JOIN kernel_names kn ON kn.name = k.name
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
    WHERE a.layer IN ($layer, $layer_b)
), k AS (
    SELECT run_id, pass, kernel, category,
        count(*) FILTER (WHERE layer = $layer) AS n_a, coalesce(sum(dur_ns) FILTER (WHERE layer = $layer), 0) AS ns_a,
        count(*) FILTER (WHERE layer = $layer_b) AS n_b, coalesce(sum(dur_ns) FILTER (WHERE layer = $layer_b), 0) AS ns_b
    FROM sel GROUP BY ALL
)
SELECT r.name AS run, k.pass, k.kernel, k.category, k.n_a AS count_a, us(k.ns_a) AS sum_us_a,
    k.n_b AS count_b, us(k.ns_b) AS sum_us_b, us(k.ns_b - k.ns_a) AS delta_us,
    CASE WHEN k.n_b = 0 THEN 'a' WHEN k.n_a = 0 THEN 'b' ELSE 'both' END AS present_in
FROM k JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, k.run_id), k.pass, abs(k.ns_b - k.ns_a) DESC, k.kernel, k.category;
