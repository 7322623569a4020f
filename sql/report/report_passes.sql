-- Report `passes`: one row per forward pass of the selected runs.
-- Inputs: _passes, _assigned (every pass assigned), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $absolute BOOLEAN: start_us and end_us in the store's absolute time instead of from the run's first
--     kernel
--   $steady_tolerance DOUBLE: how close (relative) a pass's layer-0 wall must be to the previous full
--     pass's to be steady (segment.STEADY_TOLERANCE, the rule --pass steady uses)
-- Output: rows, one per (run, pass):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   anchors BIGINT: its anchors
--   kernels BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   wall_us DECIMAL(23,3): first kernel start to last kernel end
--   start_us DECIMAL(23,3): relative to the run's first kernel unless $absolute
--   end_us DECIMAL(23,3): relative to the run's first kernel unless $absolute
--   avg_layer_us DECIMAL(23,3): mean layer wall
--   first_layer_us DECIMAL(23,3): layer-0 wall
--   note VARCHAR: partial (anchor count differs from the expected), steady-state (a full pass >= 2 whose
--     layer-0 wall is within $steady_tolerance of the previous full pass's), cold-start (a full pass before
--     the first steady one), else empty
WITH per_pass AS (
    SELECT run_id, pass, count(*) AS kernels, sum(dur_ns) AS sum_ns, min(start_ns) AS first_ns, max(end_ns) AS last_ns
    FROM _assigned GROUP BY ALL
), per_layer AS (
    SELECT run_id, pass, layer, max(end_ns) - min(start_ns) AS wall_ns
    FROM _assigned WHERE layer IS NOT NULL GROUP BY ALL
), layer_stats AS (
    SELECT run_id, pass, avg(wall_ns) AS avg_wall_ns, max(wall_ns) FILTER (WHERE layer = 0) AS l0_ns
    FROM per_layer GROUP BY ALL
), flagged AS (
    SELECT p.run_id, p.pass, p.anchors, p.partial, l.avg_wall_ns, l.l0_ns,
        NOT p.partial AND p.pass >= 2
            AND NOT lag(p.partial) OVER w
            AND abs(l.l0_ns - lag(l.l0_ns) OVER w) <= $steady_tolerance * lag(l.l0_ns) OVER w AS steady
    FROM _passes p LEFT JOIN layer_stats l USING (run_id, pass)
    WINDOW w AS (PARTITION BY p.run_id ORDER BY p.pass)
), noted AS (
    SELECT *, CASE WHEN partial THEN 'partial'
                   WHEN steady THEN 'steady-state'
                   WHEN pass < min(pass) FILTER (WHERE steady) OVER (PARTITION BY run_id) THEN 'cold-start'
                   ELSE '' END AS note
    FROM flagged
)
SELECT r.name AS run, n.pass, n.anchors, pp.kernels,
    us(pp.sum_ns) AS sum_us, us(pp.last_ns - pp.first_ns) AS wall_us,
    us(pp.first_ns - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS start_us,
    us(pp.last_ns - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS end_us,
    us(round(n.avg_wall_ns)::BIGINT) AS avg_layer_us, us(n.l0_ns) AS first_layer_us, n.note
FROM noted n JOIN per_pass pp USING (run_id, pass) JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, n.run_id), n.pass;
