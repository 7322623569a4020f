-- Report `kernels --compare-layer L2`: the kernel sets of two layers of the same pass side by side.
-- Kernels are keyed by name and category: two kernels that share a short name are two rows. A name that is
-- its short name followed by call counters (an HCCL op: hcom_allReduce__271_0_1, a new name at every call) is
-- keyed by its short name, so that the op's calls in the two layers are one row.
-- Inputs: _assigned, kernels, kernel_names, _rules, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $layer INTEGER: layer a
--   $layer_b INTEGER: layer b
-- Output: rows, one per (run, pass, kernel name, category):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   kernel VARCHAR: short name (kernel_names; else the simple name of its op type)
--   name VARCHAR: the kernel's name, without call counters (see above) (terminal and Markdown tables show
--     kernel instead, two names that share a short name told apart)
--   category VARCHAR: its category
--   count_a BIGINT: kernels in layer a
--   sum_us_a DECIMAL(38,3): their time
--   count_b BIGINT: kernels in layer b
--   sum_us_b DECIMAL(38,3): their time
--   delta_us DECIMAL(38,3): b - a
--   present_in VARCHAR: 'a', 'b' or 'both'
WITH sel AS (
    SELECT a.run_id, a.pass, a.layer, a.dur_ns, coalesce(kn.short_name, simple_name(k.op_type)) AS kernel,
        CASE WHEN starts_with(k.name, kn.short_name)
                  AND regexp_full_match(k.name[len(kn.short_name) + 1:], '_[0-9_]+') THEN kn.short_name
             ELSE k.name END AS name,
        c.category
    FROM _assigned a JOIN kernels k USING (run_id, seq)
    LEFT JOIN kernel_names kn ON kn.name = k.name
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
    WHERE a.layer IN ($layer, $layer_b)
), k AS (
    SELECT run_id, pass, name, kernel, category,
        count(*) FILTER (WHERE layer = $layer) AS n_a, coalesce(sum(dur_ns) FILTER (WHERE layer = $layer), 0) AS ns_a,
        count(*) FILTER (WHERE layer = $layer_b) AS n_b, coalesce(sum(dur_ns) FILTER (WHERE layer = $layer_b), 0) AS ns_b
    FROM sel GROUP BY ALL
)
SELECT r.name AS run, k.pass, k.kernel, k.name, k.category, k.n_a AS count_a, us(k.ns_a) AS sum_us_a,
    k.n_b AS count_b, us(k.ns_b) AS sum_us_b, us(k.ns_b - k.ns_a) AS delta_us,
    CASE WHEN k.n_b = 0 THEN 'a' WHEN k.n_a = 0 THEN 'b' ELSE 'both' END AS present_in
FROM k JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, k.run_id), k.pass, abs(k.ns_b - k.ns_a) DESC, k.kernel, k.name, k.category;
