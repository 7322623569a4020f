-- Report `compare`: several runs segmented the same way, aligned, one row per aligned key and run (tidy).
-- Inputs: _assigned (every selected pass of every run), kernels, _rules, runs. Parameters: $run_ids (the
--   first is the reference), $by ('layer' | 'category' | 'kernel').
-- by layer: key (pass, layer). by category: (pass, layer, category). by kernel: (pass, layer, category,
--   ordinal): kernels of one layer are aligned by their category and their rank within it in time order,
--   so hardware with different kernel names still lines up; both names show, one row per run.
-- aligned: every run has the key (rows of a key that some run lacks are kept and flagged, not dropped).
-- delta_us / ratio: against the first run's value for the same key (empty when it has none).
-- Columns: pass, layer, category, ordinal, run, name, kernels, sum_us, delta_us, ratio, aligned.
WITH k AS (
    SELECT a.run_id, a.pass, a.layer, a.dur_ns, a.start_ns, a.seq, c.category, kk.name
    FROM _assigned a
    JOIN kernels kk USING (run_id, seq)
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
), keyed AS (
    SELECT *,
        CASE WHEN $by = 'kernel'
             THEN row_number() OVER (PARTITION BY run_id, pass, layer, category ORDER BY start_ns, seq) - 1 END AS ordinal
    FROM k
), grouped AS (
    SELECT run_id, pass, layer, key_category AS category, ordinal,
        CASE WHEN $by = 'kernel' THEN any_value(name) END AS name,
        count(*) AS n, sum(dur_ns) AS ns
    FROM (SELECT *, CASE WHEN $by IN ('category', 'kernel') THEN category END AS key_category FROM keyed)
    GROUP BY run_id, pass, layer, key_category, ordinal
), flagged AS (
    SELECT g.*,
        count(*) OVER (PARTITION BY pass, layer, category, ordinal) = len($run_ids) AS aligned,
        max(ns) FILTER (WHERE run_id = $run_ids[1]) OVER (PARTITION BY pass, layer, category, ordinal) AS ref_ns
    FROM grouped g
)
SELECT f.pass, f.layer, f.category, f.ordinal, r.name AS run, f.name, f.n AS kernels, us(f.ns) AS sum_us,
    us(f.ns - f.ref_ns) AS delta_us, round(f.ns::DOUBLE / nullif(f.ref_ns, 0), 3)::DECIMAL(12, 3) AS ratio,
    f.aligned
FROM flagged f JOIN runs r USING (run_id)
ORDER BY f.pass, f.layer NULLS FIRST, f.category NULLS FIRST, f.ordinal NULLS FIRST, list_position($run_ids, f.run_id);
