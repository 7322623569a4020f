-- Report `compare` as one wide table (md and terminal formats): per pass its total row (layer 'all'),
-- then per layer its keys in the reference run's execution order (a key only other runs have: at its own
-- position there) and a 'sum' row (not by layer: the key is the layer); each run's kernel (by kernel: its
-- short name and its name) or kernel count and its time side by side, then the delta and ratio of each later
-- run against the first. Sums add the keys' times (for --pass mean, the means).
-- Placeholders (built by tracedb.engine.reports.compare, identifiers through tracedb.sql.ident): `run_columns`,
--   per run its elements of the lists of `runs_of` below (kernel, name: a short name and the name;
--   kernels / kernels_mean: counts; ns; with --roofline t_ideal and ns_rated, its % of peak), element i the
--   run at $run_ids[i];
--   `diff_columns`, per later run its delta_us and ratio. Over more than 8 runs (compare.WIDE_RUNS) the first
--   run's columns, then the spread over the runs (_spread_columns), in place of both.
-- Inputs: _cmp (compare_align.sql), kernel_names.
-- Parameters:
--   $run_ids INTEGER[]: the runs; the first is the reference
--   $by VARCHAR: 'layer' | 'category' | 'module' | 'kernel'
--   $null_layer VARCHAR: what a NULL layer is: 'prologue', or 'mean' with --layer mean
--   $run_names VARCHAR[]: the runs' names, in the order of $run_ids (the spread's slowest run)
-- Output: rows, per pass its total, then per layer its keys and their sum (the key columns of --by are
--   kept by the caller, the others dropped):
--   pass VARCHAR: as in _cmp
--   layer VARCHAR: the layer, 'all' (the pass total), the unit of a NULL layer (prologue, epilogue), or
--     $null_layer
--   category VARCHAR: the key's category, 'sum' on a sum row
--   module VARCHAR: the key's module, 'sum' on a sum row
--   <run>_kernel VARCHAR: by kernel: the run's kernel (short name), one column per run
--   <run>_name VARCHAR: by kernel: the run's kernel name, one column per run (the caller tells the kernels that
--     share a short name apart by it, over every run's column, and leaves it out)
--   <run>_kernels HUGEINT: other --by: the run's kernel count, one column per run
--   <run>_kernels DECIMAL(38,1): other --by with --pass mean: the run's mean kernel count
--   <run>_us DECIMAL(38,3): the run's time, one column per run
--   [<run>_pct_peak] DECIMAL(7,1): --roofline: the run's ideal time at its device's peak over its measured
--     time, %, one column per run; empty above 100 % (report roofline flags it)
--   delta_us DECIMAL(38,3): each later run - the first (delta_us_<run> with three runs or more)
--   delta_us_<run> DECIMAL(38,3): as delta_us
--   ratio DECIMAL(12,3): each later run / the first (ratio_<run> with three runs or more)
--   ratio_<run> DECIMAL(12,3): as ratio
--   [runs] BIGINT: over more than 8 runs, in place of every other run's columns and the diff columns
--     (the first run's stay): the runs that have the key
--   [min_us] DECIMAL(38,3): over more than 8 runs: the fastest run's time
--   [median_us] DECIMAL(38,3): over more than 8 runs: the lower median of the runs' times
--   [max_us] DECIMAL(38,3): over more than 8 runs: the slowest run's time
--   [slowest] VARCHAR: over more than 8 runs: the slowest run (the first of equals in $run_ids order)
--   [max_ratio] DECIMAL(12,3): over more than 8 runs: the slowest time / the first run's
WITH g AS (
    SELECT run_id, pass, pass_ord, layer AS k_layer, unit AS k_unit, category AS k_category, module AS k_module,
        ordinal AS k_ordinal,
        GROUPING(layer, unit, category, module, ordinal) AS level,   -- 0: a key; 7: a layer's sum; 31: the pass total
        CASE WHEN GROUPING(layer, unit, category, module, ordinal) = 0 THEN coalesce((SELECT kn.short_name FROM kernel_names kn WHERE kn.name = any_value(c.name)),
                                                                   simple_name(any_value(c.name))) END AS kernel,
        CASE WHEN GROUPING(layer, unit, category, module, ordinal) = 0 THEN any_value(c.name) END AS name,
        sum(n_total) AS kernels, sum(mean1(n_total, units)) AS kernels_mean, sum(ns) AS ns, min(pos) AS pos,
        sum(t_ideal) AS t_ideal, sum(ns_rated) AS ns_rated
    FROM _cmp c
    GROUP BY GROUPING SETS ((run_id, pass, pass_ord, layer, unit, category, module, ordinal),
                            (run_id, pass, pass_ord, layer, unit), (run_id, pass, pass_ord))
), keyed AS (
    -- one row per key, each run's figures in lists by the run's position in $run_ids (NULL where the run lacks
    -- the key): one list per figure instead of a filtered sum per run and figure (512 of them over 128 ranks
    -- took 0.8 s)
    SELECT pass, pass_ord, k_layer, k_unit, k_category, k_module, k_ordinal, level,
        coalesce(min(pos) FILTER (WHERE run_id = $run_ids[1]), min(pos)) AS k_pos,
        list(list_position($run_ids, run_id)) AS places,
        list(kernel) AS kernel_l, list(name) AS name_l, list(kernels) AS kernels_l, list(kernels_mean) AS kernels_mean_l, list(ns) AS ns_l,
        list(t_ideal) AS t_ideal_l, list(ns_rated) AS ns_rated_l
    FROM g
    WHERE level <> 7 OR $by <> 'layer'
    GROUP BY pass, pass_ord, k_layer, k_unit, k_category, k_module, k_ordinal, level
), slotted AS (
    -- per key, where each run of $run_ids sits in its lists (NULL: the run lacks the key)
    SELECT *, list_transform(range(1, len($run_ids) + 1), lambda i: list_position(places, i)) AS slots FROM keyed
), runs_of AS (
    -- per key and figure, a list with one element per run of $run_ids, in its order
    SELECT * EXCLUDE (places, slots, kernel_l, name_l, kernels_l, kernels_mean_l, ns_l, t_ideal_l, ns_rated_l),
        list_transform(slots, lambda j: kernel_l[j]) AS kernel,
        list_transform(slots, lambda j: name_l[j]) AS name,
        list_transform(slots, lambda j: kernels_l[j]) AS kernels,
        list_transform(slots, lambda j: kernels_mean_l[j]) AS kernels_mean,
        list_transform(slots, lambda j: ns_l[j]) AS ns,
        list_transform(slots, lambda j: t_ideal_l[j]) AS t_ideal,
        list_transform(slots, lambda j: ns_rated_l[j]) AS ns_rated,
        $run_names AS run_names
    FROM slotted
), wide AS (
    SELECT pass,
        CASE WHEN level = 31 THEN 'all' ELSE coalesce(k_layer::VARCHAR, k_unit, $null_layer) END AS layer,
        CASE WHEN level > 0 THEN 'sum' ELSE k_category END AS category,
        CASE WHEN level > 0 THEN 'sum' ELSE k_module END AS module,
        {run_columns},
        {diff_columns},
        pass_ord, k_layer, k_unit, level, k_pos, k_category, k_module, k_ordinal
    FROM runs_of
)
SELECT * EXCLUDE (pass_ord, k_layer, k_unit, level, k_pos, k_category, k_module, k_ordinal)
FROM wide
ORDER BY pass_ord, level = 31 DESC, k_unit IS NOT DISTINCT FROM 'epilogue', k_layer NULLS FIRST, level, k_pos, k_category,
    k_module, k_ordinal;
