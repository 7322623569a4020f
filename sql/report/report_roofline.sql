-- Report `roofline`: achieved FLOP/s and bytes/s of the selected passes' kernels against the device's peak,
-- per kernel name, category, layer, pass or run. A kernel's ideal time is the longer of flops / peak FLOP/s
-- (the peak of its dtype) and bytes / peak bytes/s: the roofline. A group's pct_peak is the sum of its
-- kernels' ideal times over the sum of their durations (kernels with known work and peaks only); its bound
-- is compute when the FLOP terms of those ideal times outweigh the byte terms (intensity above the ridge).
-- Inputs: _assigned, kernels, kernel_names, kernel_metrics, _rules, runs, TEMP _rl_kernels (roofline_kernels.sql:
--   each kernel's work and ideal times).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $by VARCHAR: kernel | category | layer | pass | run
-- Output: rows, one per group (by kernel: per run, kernel name and category; the others per run and unit):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass (by pass, layer)
--   layer BIGINT: the layer (by layer; NULL with a pass: the prologue or the epilogue)
--   category VARCHAR: the category (by category, kernel)
--   name VARCHAR: the kernel name (by kernel)
--   short_name VARCHAR: its short name (terminal and Markdown tables show it instead of name)
--   count BIGINT: kernels
--   sum_us DECIMAL(38,3): their time
--   flops HUGEINT: their floating-point operations, where known
--   bytes HUGEINT: their bytes read and written, where known
--   intensity DECIMAL(18,2): flops / bytes over the kernels with both
--   tflops_s DECIMAL(18,3): flops / the time of the kernels with flops, TFLOP/s
--   tbytes_s DECIMAL(18,3): bytes / the time of the kernels with bytes, TB/s
--   bound VARCHAR: compute | memory: which roofline term dominates the group's ideal time; NULL without work or peaks
--   pct_peak DECIMAL(7,1): ideal time at peak over measured time, % of the bound's peak; NULL above 100 % (see flag)
--     or without work or peaks
--   mfu_pct DECIMAL(7,1): model FLOPs utilisation: the FLOP terms of the ideal times over the group's whole time (per
--     pass: the pass's MFU); NULL above 100 %
--   device_mac_pct DECIMAL(7,1): what the device measured itself (Ascend aic_mac_ratio: the cube unit's busy share of
--     the kernel's time), time-weighted over the kernels that have it, %
--   device_cube_pct DECIMAL(7,1): the device's cube_utilization(%) (Ascend, level 2: the cube units' busy share over
--     all of the chip's cube cores), time-weighted over the kernels that have it, %
--   coverage_pct DECIMAL(6,1): share of the group's time in kernels with FLOPs or bytes
--   flag VARCHAR: why pct_peak or mfu_pct is empty although work is known: above 100 % of peak means a wrong shape,
--     dtype or peak
--   flops_source VARCHAR: the formulas of the group's kernels, distinct, sorted
--   unit VARCHAR: by layer: prologue | layer | epilogue (every format but Arrow prints the prologue's and epilogue's
--     unit in the layer column); else NULL
WITH ideal AS (
    SELECT a.run_id, a.pass, a.layer, a.unit, a.dur_ns, c.category, kk.name, w.flops, w.bytes, w.flops_source,
        w.t_flops, w.t_bytes, w.rated, m.value AS mac, cu.value AS cube
    FROM _assigned a
    JOIN kernels kk USING (run_id, seq)
    JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord)
    JOIN _rl_kernels w USING (run_id, seq)
    LEFT JOIN (SELECT run_id, seq, value FROM kernel_metrics
               WHERE metric = 'aic_mac_ratio' AND run_id IN (SELECT unnest($run_ids))) m USING (run_id, seq)
    LEFT JOIN (SELECT run_id, seq, value FROM kernel_metrics
               WHERE metric = 'cube_utilization(%)' AND run_id IN (SELECT unnest($run_ids))) cu USING (run_id, seq)
), g AS (
    SELECT run_id,
        CASE WHEN $by IN ('pass', 'layer') THEN pass END AS pass,
        CASE WHEN $by = 'layer' THEN layer END AS layer,
        CASE WHEN $by = 'layer' THEN unit END AS unit,
        CASE WHEN $by IN ('category', 'kernel') THEN category END AS category,
        CASE WHEN $by = 'kernel' THEN name END AS name,
        count(*) AS n, sum(dur_ns) AS ns, sum(flops) AS flops, sum(bytes) AS bytes,
        sum(flops) FILTER (WHERE bytes IS NOT NULL) AS flops_fb, sum(bytes) FILTER (WHERE flops IS NOT NULL) AS bytes_fb,
        sum(dur_ns) FILTER (WHERE flops IS NOT NULL) AS ns_f, sum(dur_ns) FILTER (WHERE bytes IS NOT NULL) AS ns_b,
        sum(dur_ns) FILTER (WHERE flops IS NOT NULL OR bytes IS NOT NULL) AS ns_w,
        sum(greatest(coalesce(t_flops, 0), coalesce(t_bytes, 0))) FILTER (WHERE rated) AS t_ideal,
        sum(dur_ns) FILTER (WHERE rated) AS ns_rated,
        sum(coalesce(t_flops, 0)) FILTER (WHERE rated) AS t_f, sum(coalesce(t_bytes, 0)) FILTER (WHERE rated) AS t_b,
        sum(t_flops) AS t_model,
        sum(mac * dur_ns) / sum(dur_ns) FILTER (WHERE mac IS NOT NULL) AS mac,
        sum(cube * dur_ns) / sum(dur_ns) FILTER (WHERE cube IS NOT NULL) AS cube,
        string_agg(DISTINCT flops_source, '; ' ORDER BY flops_source) AS sources
    FROM ideal
    GROUP BY ALL
), rated AS (
    SELECT *, 100 * t_ideal / (ns_rated * 1e-9) AS pct, 100 * t_model / (ns * 1e-9) AS mfu FROM g
)
SELECT r.name AS run, g.pass, g.layer, g.category, g.name, coalesce(kn.short_name, g.name) AS short_name,
    g.n AS count, us(g.ns) AS sum_us, g.flops, g.bytes,
    round(g.flops_fb / nullif(g.bytes_fb, 0), 2)::DECIMAL(18, 2) AS intensity,
    round(g.flops / nullif(g.ns_f, 0) / 1000, 3)::DECIMAL(18, 3) AS tflops_s,
    round(g.bytes / nullif(g.ns_b, 0) / 1000, 3)::DECIMAL(18, 3) AS tbytes_s,
    CASE WHEN g.ns_rated > 0 THEN CASE WHEN g.t_f >= g.t_b THEN 'compute' ELSE 'memory' END END AS bound,
    CASE WHEN g.pct <= 100 THEN round(g.pct, 1)::DECIMAL(7, 1) END AS pct_peak,
    CASE WHEN g.mfu <= 100 THEN round(g.mfu, 1)::DECIMAL(7, 1) END AS mfu_pct,
    round(100 * g.mac, 1)::DECIMAL(7, 1) AS device_mac_pct,
    round(g.cube, 1)::DECIMAL(7, 1) AS device_cube_pct,
    round(100.0 * coalesce(g.ns_w, 0) / nullif(g.ns, 0), 1)::DECIMAL(6, 1) AS coverage_pct,
    CASE WHEN g.pct > 100 OR g.mfu > 100
         THEN 'over 100 % of peak (' || round(greatest(g.pct, g.mfu), 1) || ' %): wrong shape, dtype or peak' END AS flag,
    g.sources AS flops_source, g.unit
FROM rated g JOIN runs r USING (run_id) LEFT JOIN kernel_names kn ON kn.name = g.name
ORDER BY list_position($run_ids, g.run_id), g.pass NULLS FIRST, g.unit = 'epilogue', g.layer NULLS FIRST,
    CASE WHEN $by IN ('kernel', 'category') THEN -g.ns END, g.category, g.name;
