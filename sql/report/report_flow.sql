-- Report `kernels --flow` (--format compute-flow): every kernel of one layer, hottest first.
-- Inputs: _assigned, kernels, kernel_names, _rules, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $layer INTEGER: the layer (NULL: the prologue)
--   $order VARCHAR: 'time' (time order) or 'dur' (hottest first)
--   $absolute BOOLEAN: ts_rel_ms in the store's absolute time instead of from the run's first kernel
-- Output: rows, one per kernel of the layer:
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   layer BIGINT: the layer
--   ordinal BIGINT: position in the layer, time order, from 0
--   half BIGINT: block within the layer
--   category VARCHAR: its category
--   kernel VARCHAR: short name (kernel_names; else the simple name of its op type)
--   name VARCHAR: the kernel's name (terminal and Markdown tables show kernel instead, two names that share a
--     short name told apart)
--   dur_us DECIMAL(23,3): its duration
--   share_pct DECIMAL(6,2): share of the layer's kernel time
--   ts_rel_ms DECIMAL(26,6): start relative to the run's first kernel, to find it in Perfetto
--   input_shapes VARCHAR: its input shapes
WITH sel AS (
    SELECT a.*, k.name, k.op_type, k.input_shapes, c.category, kn.short_name,
        row_number() OVER (PARTITION BY a.run_id, a.pass ORDER BY a.start_ns, a.seq) - 1 AS ordinal,
        sum(a.dur_ns) OVER (PARTITION BY a.run_id, a.pass) AS layer_ns
    FROM _assigned a JOIN kernels k USING (run_id, seq)
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
    LEFT JOIN kernel_names kn ON kn.name = k.name
    WHERE a.layer IS NOT DISTINCT FROM $layer
)
SELECT r.name AS run, s.pass, s.layer, s.ordinal, s.half, s.category, coalesce(s.short_name, simple_name(s.op_type)) AS kernel,
    s.name, us(s.dur_ns) AS dur_us, round(100.0 * s.dur_ns / nullif(s.layer_ns, 0), 2)::DECIMAL(6, 2) AS share_pct,
    ms(s.start_ns - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS ts_rel_ms,
    bare_shape(s.input_shapes) AS input_shapes
FROM sel s JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, s.run_id), s.pass,
    CASE WHEN $order = 'time' THEN 0 ELSE -s.dur_ns END, s.ordinal;
