-- Stage of `report compare`: each run's time per key, then the keys matched across runs.
-- Inputs: _assigned (the selected passes), kernels (names), _rules (category names), _attr (each kernel's
--   module, from attribute_modules.sql for --by module, else empty: attribute_none.sql).
-- Parameters: $run_ids (the first is the reference); $by 'layer' | 'category' | 'module' | 'kernel';
--   $by_path (modules by instance path, not role); $kernel_module (by kernel: align within module roles too);
--   $label NULL (passes matched by number) or 'steady' | 'auto' | 'mean' (each run's selected passes matched
--   whatever their numbers, and labelled so; for mean there are several per run, averaged).
-- Keys: by layer (pass, layer); by category (pass, layer, category); by module (pass, layer, module),
--   the innermost launching module as in report modules; by kernel (pass, layer, category, module,
--   ordinal): the kernels of a layer aligned by category (memsets and memcpys apart: 'other:memset'),
--   module role when every run has one ($kernel_module), and rank within them in time order, so hardware
--   with different kernel names still lines up while unrelated kernels never pair. The prologue of a full
--   window is the layer NULL.
-- pos: rank (from 1, time order) of the key's first kernel in its layer: wide tables follow it.
-- Output: TEMP _cmp_pass(run_id, pass, layer, category, module, ordinal, name, pos, n, ns): a row per run,
--   selected pass and key (name: the kernel's, by kernel only). TEMP _cmp(run_id, pass VARCHAR, pass_ord,
--   layer, category, module, ordinal, name, pos, n_total, passes, units, ns, min_ns, max_ns, delta_ns, ratio,
--   aligned): a row per run and key over its passes: units = how many selected passes the run averages
--   over (with $label 'mean'; else 1), ns = the key's time summed over them / units, a unit without the
--   key counting 0, so the keys of a run add up to its mean pass or layer (exact integer ns, mean_ns; one
--   pass: its ns); min/max over the units (0 when some unit lacks the key); passes = how many units have
--   the key, n_total = their kernels; name from the first of
--   them; delta_ns and ratio (3 decimals) against the first run's ns for the key (NULL when it has none);
--   aligned = every run has the key (rows of a key some run lacks are kept, flagged, never dropped).
CREATE OR REPLACE TEMP TABLE _cmp_pass AS
WITH k AS (
    SELECT a.run_id, a.pass, a.layer, a.dur_ns, kk.name, m.module,
        -- by kernel, a memset or memcpy never faces a kernel: its kind is part of the category key
        CASE WHEN $by = 'kernel' AND kk.kind IN ('memset', 'memcpy') THEN c.category || ':' || kk.kind
             ELSE c.category END AS category,
        row_number() OVER (PARTITION BY a.run_id, a.pass, a.layer ORDER BY a.start_ns, a.seq) AS kpos
    FROM _assigned a
    JOIN kernels kk USING (run_id, seq)
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
    LEFT JOIN (SELECT run_id, seq, CASE WHEN $by_path THEN module_path ELSE module END AS module FROM _attr) m
        USING (run_id, seq)
), keyed AS (
    SELECT run_id, pass, layer, dur_ns, name, kpos,
        CASE WHEN $by IN ('category', 'kernel') THEN category END AS key_category,
        CASE WHEN $by = 'module' OR ($by = 'kernel' AND $kernel_module) THEN module END AS key_module,
        CASE WHEN $by = 'kernel' THEN row_number() OVER (
            PARTITION BY run_id, pass, layer, category, CASE WHEN $kernel_module THEN module END
            ORDER BY kpos) - 1 END AS key_ordinal
    FROM k
)
SELECT run_id, pass, layer, key_category AS category, key_module AS module, key_ordinal AS ordinal,
    CASE WHEN $by = 'kernel' THEN any_value(name) END AS name, min(kpos) AS pos, count(*) AS n, sum(dur_ns) AS ns
FROM keyed
GROUP BY run_id, pass, layer, key_category, key_module, key_ordinal;
CREATE OR REPLACE TEMP TABLE _cmp AS
WITH units AS (
    -- how many selected passes (for --layer mean: full layers) each run averages over
    SELECT run_id, count(DISTINCT pass) AS units FROM _cmp_pass GROUP BY run_id
), collapsed AS (
    SELECT run_id, CASE WHEN $label IS NULL THEN pass END AS pass_key, layer, category, module, ordinal,
        arg_min(name, pass) AS name, min(pos) AS pos, sum(n) AS n_total, count(*) AS passes,
        CASE WHEN $label IS NULL THEN 1 ELSE any_value(u.units) END AS units,
        -- a unit without the key counts as 0, so a run's keys add up to its mean pass (or layer)
        mean_ns(sum(ns), CASE WHEN $label IS NULL THEN 1 ELSE any_value(u.units) END) AS ns,
        CASE WHEN $label IS NOT NULL AND count(*) < any_value(u.units) THEN 0 ELSE min(ns) END AS min_ns,
        max(ns) AS max_ns
    FROM _cmp_pass JOIN units u USING (run_id)
    GROUP BY ALL
), flagged AS (
    SELECT *,
        count(*) OVER key = len($run_ids) AS aligned,
        max(ns) FILTER (WHERE run_id = $run_ids[1]) OVER key AS ref_ns
    FROM collapsed
    WINDOW key AS (PARTITION BY pass_key, layer, category, module, ordinal)
)
SELECT run_id, coalesce($label, pass_key::VARCHAR) AS pass, coalesce(pass_key, 0) AS pass_ord, layer, category,
    module, ordinal, name, pos, n_total, passes, units, ns, min_ns, max_ns, ns - ref_ns AS delta_ns, ratio3(ns, ref_ns) AS ratio,
    aligned
FROM flagged;
