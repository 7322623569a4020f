-- Report `compare` as one wide table (md and terminal formats), the layout of seeds/002: per pass its
-- total row (layer 'all'), then per layer its keys in the reference run's execution order (a key only
-- other runs have: at its own position there) and a 'sum' row (not by layer: the key is the layer);
-- each run's kernel name (by kernel; short form) or kernel count and its time side by side, then the
-- delta and ratio of each later run against the first. Sums add the keys' times (for --pass mean, the means).
-- Inputs: _cmp (compare_align.sql). Parameters: $run_ids, $by, $null_layer (what a NULL layer is: 'prologue',
--   or 'mean' with --layer mean).
-- Placeholders (built by tracedb.engine.compare, identifiers through tracedb.sql.ident): `run_columns`,
--   per run over the rows of `g` below (column kernel: a short name; kernels / kernels_mean: counts; ns);
--   `diff_columns`, per later run its delta_us and ratio.
-- Columns: pass, layer, category, module (the key columns of --by are kept by the caller), then the
--   placeholders' columns.
WITH g AS (
    SELECT run_id, pass, pass_ord, layer AS k_layer, category AS k_category, module AS k_module, ordinal AS k_ordinal,
        GROUPING(layer, category, module, ordinal) AS level,   -- 0: a key; 7: a layer's sum; 15: the pass total
        CASE WHEN GROUPING(layer, category, module, ordinal) = 0 THEN coalesce((SELECT kn.short_name FROM kernel_names kn WHERE kn.name = any_value(c.name)),
                                                                   simple_name(any_value(c.name))) END AS kernel,
        sum(n_total) AS kernels, sum(mean1(n_total, units)) AS kernels_mean, sum(ns) AS ns, min(pos) AS pos
    FROM _cmp c
    GROUP BY GROUPING SETS ((run_id, pass, pass_ord, layer, category, module, ordinal), (run_id, pass, pass_ord, layer),
                            (run_id, pass, pass_ord))
), wide AS (
    SELECT pass,
        CASE WHEN level = 15 THEN 'all' ELSE coalesce(k_layer::VARCHAR, $null_layer) END AS layer,
        CASE WHEN level > 0 THEN 'sum' ELSE k_category END AS category,
        CASE WHEN level > 0 THEN 'sum' ELSE k_module END AS module,
        {run_columns},
        {diff_columns},
        pass_ord, k_layer, level, coalesce(min(pos) FILTER (WHERE run_id = $run_ids[1]), min(pos)) AS k_pos,
        k_category, k_module, k_ordinal
    FROM g
    WHERE level <> 7 OR $by <> 'layer'
    GROUP BY pass, pass_ord, k_layer, k_category, k_module, k_ordinal, level
)
SELECT * EXCLUDE (pass_ord, k_layer, level, k_pos, k_category, k_module, k_ordinal)
FROM wide
ORDER BY pass_ord, level = 15 DESC, k_layer NULLS FIRST, level, k_pos, k_category, k_module, k_ordinal;
