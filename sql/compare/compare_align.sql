-- Stage of `report compare`: each run's time per key, then the keys matched across runs.
-- Keys: by layer (pass, layer); by category (pass, layer, category); by stage (pass, layer, stage: the
--   stage in the category column, layer_stages.sql); by module (pass, layer, module),
--   the innermost launching module as in report modules; by kernel (pass, layer, category, module,
--   ordinal): the kernels of a layer aligned by category (memsets and memcpys apart: 'other:memset'),
--   module role when every run has one ($kernel_module), and rank within them in time order, so hardware
--   with different kernel names still lines up while unrelated kernels never pair. The prologue of a full
--   window is the layer NULL with unit prologue, the epilogue the layer NULL with unit epilogue.
-- Inputs: _assigned (the selected passes), kernels (names), _rules (category names), _attr (each kernel's
--   module, from attribute_modules.sql for --by module, else empty: attribute_none.sql), TEMP _cmp_work(run_id
--   INTEGER, seq BIGINT, flops BIGINT, t_ideal DOUBLE, rated BOOLEAN) (tracedb.engine.reports.compare: with
--   --roofline each kernel's FLOPs and ideal time at the device's peak, roofline_kernels.sql; else empty),
--   _stages (layer_stages.sql for --by stage, else empty: stages_none.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs; the first is the reference
--   $by VARCHAR: 'layer' | 'category' | 'module' | 'kernel' | 'stage'
--   $by_path BOOLEAN: modules by instance path, not role
--   $kernel_module BOOLEAN: by kernel: align within module roles too
--   $label VARCHAR: NULL (passes matched by number) or 'steady' | 'auto' | 'mean' (each run's selected
--     passes matched whatever their numbers, and labelled so; for mean there are several per run, averaged)
-- Output: TEMP _cmp_pass, one row per run, selected pass and key:
--   run_id INTEGER: the run
--   pass BIGINT: the selected pass
--   layer BIGINT: key: the layer; NULL: the prologue or the epilogue
--   unit VARCHAR: key: prologue | epilogue for those, NULL for a layer
--   category VARCHAR: key by category and by kernel; by stage the stage (NULL: prologue, epilogue); else NULL
--   module VARCHAR: key by module, and by kernel with $kernel_module, else NULL
--   ordinal BIGINT: key by kernel: rank from 0 in time order within (layer, category, module), else NULL
--   name VARCHAR: the kernel's name, by kernel only
--   pos BIGINT: rank (from 1, time order) of the key's first kernel in its layer: wide tables follow it
--   n BIGINT: the key's kernels
--   ns HUGEINT: their time
--   flops HUGEINT: their FLOPs (_cmp_work), NULL without any
--   ns_f HUGEINT: the time of those with FLOPs
--   t_ideal DOUBLE: the ideal time at the device's peak of those whose work and peaks are known, seconds
--   ns_rated HUGEINT: their measured time
-- Output: TEMP _cmp, one row per run and key over its passes (rows of a key some run lacks are kept,
--   flagged, never dropped):
--   run_id INTEGER: the run
--   pass VARCHAR: the pass number as text, or $label
--   pass_ord BIGINT: the pass number, 0 with $label: the order of passes
--   layer BIGINT: as in _cmp_pass
--   unit VARCHAR: as in _cmp_pass
--   category VARCHAR: as in _cmp_pass
--   module VARCHAR: as in _cmp_pass
--   ordinal BIGINT: as in _cmp_pass
--   name VARCHAR: from the first of the units that have the key
--   pos BIGINT: the smallest pos over the units
--   n_total HUGEINT: kernels of the units that have the key
--   passes BIGINT: how many units have the key
--   units BIGINT: how many selected passes the run averages over (with $label 'mean'; else 1)
--   ns BIGINT: the key's time summed over the units / units, a unit without the key counting 0, so the
--     keys of a run add up to its mean pass or layer (exact integer ns, mean_ns; one pass: its ns)
--   min_ns HUGEINT: the smallest time over the units (0 when some unit lacks the key)
--   max_ns HUGEINT: the largest time over the units
--   delta_ns BIGINT: ns - the first run's ns for the key (NULL when it has none)
--   ratio DECIMAL(12,3): ns / the first run's ns for the key, 3 decimals (NULL when it has none)
--   aligned BOOLEAN: every run has the key
--   flops HUGEINT: as in _cmp_pass, over the units
--   ns_f HUGEINT: as in _cmp_pass, over the units
--   t_ideal DOUBLE: as in _cmp_pass, over the units
--   ns_rated HUGEINT: as in _cmp_pass, over the units
CREATE OR REPLACE TEMP TABLE _cmp_pass AS
WITH k AS (
    SELECT a.run_id, a.pass, a.layer, CASE WHEN a.unit <> 'layer' THEN a.unit END AS unit, a.dur_ns, kk.name, m.module,
        -- by kernel, a memset or memcpy never faces a kernel: its kind is part of the category key
        CASE WHEN $by = 'kernel' AND kk.kind IN ('memset', 'memcpy') THEN c.category || ':' || kk.kind
             ELSE c.category END AS category,
        row_number() OVER (PARTITION BY a.run_id, a.pass, a.layer, a.unit ORDER BY a.start_ns, a.seq) AS kpos, st.stage,
        w.flops, w.t_ideal, w.rated
    FROM _assigned a
    JOIN kernels kk USING (run_id, seq)
    LEFT JOIN _cmp_work w USING (run_id, seq)
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
    LEFT JOIN (SELECT run_id, seq, CASE WHEN $by_path THEN module_path ELSE module END AS module FROM _attr) m
        USING (run_id, seq)
    LEFT JOIN _stages st USING (run_id, seq)
), keyed AS (
    SELECT run_id, pass, layer, unit, dur_ns, name, kpos, flops, t_ideal, rated,
        CASE WHEN $by IN ('category', 'kernel') THEN category WHEN $by = 'stage' THEN stage END AS key_category,
        CASE WHEN $by = 'module' OR ($by = 'kernel' AND $kernel_module) THEN module END AS key_module,
        CASE WHEN $by = 'kernel' THEN row_number() OVER (
            PARTITION BY run_id, pass, layer, unit, category, CASE WHEN $kernel_module THEN module END
            ORDER BY kpos) - 1 END AS key_ordinal
    FROM k
)
SELECT run_id, pass, layer, unit, key_category AS category, key_module AS module, key_ordinal AS ordinal,
    CASE WHEN $by = 'kernel' THEN any_value(name) END AS name, min(kpos) AS pos, count(*) AS n, sum(dur_ns) AS ns,
    sum(flops) AS flops, sum(dur_ns) FILTER (WHERE flops IS NOT NULL) AS ns_f,
    sum(t_ideal) FILTER (WHERE rated) AS t_ideal, sum(dur_ns) FILTER (WHERE rated) AS ns_rated
FROM keyed
GROUP BY run_id, pass, layer, unit, key_category, key_module, key_ordinal;
CREATE OR REPLACE TEMP TABLE _cmp AS
WITH units AS (
    -- how many selected passes (for --layer mean: full layers) each run averages over
    SELECT run_id, count(DISTINCT pass) AS units FROM _cmp_pass GROUP BY run_id
), collapsed AS (
    SELECT run_id, CASE WHEN $label IS NULL THEN pass END AS pass_key, layer, unit, category, module, ordinal,
        arg_min(name, pass) AS name, min(pos) AS pos, sum(n) AS n_total, count(*) AS passes,
        CASE WHEN $label IS NULL THEN 1 ELSE any_value(u.units) END AS units,
        -- a unit without the key counts as 0, so a run's keys add up to its mean pass (or layer)
        mean_ns(sum(ns), CASE WHEN $label IS NULL THEN 1 ELSE any_value(u.units) END) AS ns,
        CASE WHEN $label IS NOT NULL AND count(*) < any_value(u.units) THEN 0 ELSE min(ns) END AS min_ns,
        max(ns) AS max_ns, sum(flops) AS flops, sum(ns_f) AS ns_f, sum(t_ideal) AS t_ideal,
        sum(ns_rated) AS ns_rated
    FROM _cmp_pass JOIN units u USING (run_id)
    GROUP BY ALL
), flagged AS (
    SELECT *,
        count(*) OVER key = len($run_ids) AS aligned,
        max(ns) FILTER (WHERE run_id = $run_ids[1]) OVER key AS ref_ns
    FROM collapsed
    WINDOW key AS (PARTITION BY pass_key, layer, unit, category, module, ordinal)
)
SELECT run_id, coalesce($label, pass_key::VARCHAR) AS pass, coalesce(pass_key, 0) AS pass_ord, layer, unit, category,
    module, ordinal, name, pos, n_total, passes, units, ns, min_ns, max_ns, ns - ref_ns AS delta_ns, ratio3(ns, ref_ns) AS ratio,
    aligned, flops, ns_f, t_ideal, ns_rated
FROM flagged;
