-- Report `passes`: one row per pass of the selected runs, forward and backward (a training trace has both).
-- The first three statements add the rows of the phase just segmented to TEMP _pass_rows; the last one
-- reads them all (tracedb.engine.reports.registry runs the first three once per phase).
-- us_per_token is the step's device span over its tokens: from the first to the last kernel of the pass that the
-- serving step ran, those launched inside its step annotation (the one segment_steps.sql read the tokens from:
-- the innermost of that name around the launch of the pass's first anchor), or, where only the annotation's
-- GPU-side copy is in the trace, those starting inside it. A full window reaches back over the idle before the
-- step to the kernels before it (SGLang's prefill: a 493 ms gap, then its 524 kernels), which the device did not
-- spend on the step's tokens; the pass's own span stands in where no kernel of it is found in the step.
-- Inputs: _passes, _assigned (every pass assigned), _pass_info (segment_steps.sql), _anchor_pass, kernels,
--   host_events, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $phase VARCHAR: the phase of _passes (forward | backward)
--   $absolute BOOLEAN: start_us and end_us in the store's absolute time instead of from the run's first
--     kernel
--   $steady_tolerance DOUBLE: how close (relative) a pass's layer-0 wall must be to the previous full
--     pass's to be steady (assignment.STEADY_TOLERANCE, the rule --pass steady uses)
-- Output: rows, one per (run, phase, pass), forward passes first:
--   run VARCHAR: the run's name
--   pass BIGINT: the pass (numbered per phase from 0 in time order)
--   phase VARCHAR: forward | backward
--   step BIGINT: its step (Ascend Step Id, ProfilerStep#N, the serving step or the optimizer steps; else the pass)
--   microbatch BIGINT: its position among the passes of its step and phase, from 0
--   step_kind VARCHAR: prefill | decode | mixed | train; NULL when unknown
--   tokens BIGINT: tokens of the serving step; NULL when unknown
--   requests BIGINT: requests (context + generation) of the serving step; NULL when unknown
--   anchors BIGINT: its anchors
--   kernels BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   wall_us DECIMAL(23,3): first kernel start to last kernel end
--   start_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
--   end_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
--   avg_layer_us DECIMAL(23,3): mean layer wall
--   first_layer_us DECIMAL(23,3): layer-0 wall
--   us_per_token DECIMAL(23,3): the step's device span / tokens: from the first to the last kernel of the pass
--     launched inside its serving step annotation (or starting inside its GPU-side copy), not the pass's wall, whose
--     window may reach back over idle before the step; NULL when tokens are unknown
--   note VARCHAR: partial (anchor count differs from the expected), cold-start (a full pass before the first steady
--     one: a full pass >= 2 whose layer-0 wall is within 5 % of the previous full pass's), steady-state (every full
--     pass from the first steady one on: one contiguous stretch), else empty
CREATE OR REPLACE TEMP TABLE _pass_phase AS
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
), served_anchors AS (
    -- the passes with tokens: their first anchor and the step annotation segment_steps.sql read
    SELECT a.run_id, a.pass, k.start_ns AS anchor_ns, i.annotation, k.correlation_id
    FROM _anchor_pass a JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
    JOIN _pass_info i ON i.run_id = a.run_id AND i.pass = a.pass
    WHERE a.k = 0 AND i.tokens > 0
), served AS (
    -- ... and the anchor's launch
    SELECT s.run_id, s.pass, s.anchor_ns, s.annotation, l.call_ns AS launch_ns
    FROM served_anchors s LEFT JOIN launches_of('served_anchors') l USING (run_id, correlation_id)
), host_step AS (
    SELECT s.run_id, s.pass, m.start_ns AS from_ns, m.start_ns + m.dur_ns AS to_ns
    FROM served s JOIN host_events m ON m.run_id = s.run_id AND m.name = s.annotation
     AND m.cat IN ('user_annotation', 'cpu_op') AND s.launch_ns >= m.start_ns AND s.launch_ns < m.start_ns + m.dur_ns
    QUALIFY row_number() OVER (PARTITION BY s.run_id, s.pass ORDER BY m.start_ns DESC) = 1
), device_step AS (
    SELECT s.run_id, s.pass, m.start_ns AS from_ns, m.start_ns + m.dur_ns AS to_ns
    FROM served s JOIN host_events m ON m.run_id = s.run_id AND m.name = s.annotation
     AND m.cat = 'gpu_user_annotation' AND s.anchor_ns >= m.start_ns AND s.anchor_ns < m.start_ns + m.dur_ns
    WHERE NOT EXISTS (SELECT 1 FROM host_step h WHERE h.run_id = s.run_id AND h.pass = s.pass)
    QUALIFY row_number() OVER (PARTITION BY s.run_id, s.pass ORDER BY m.start_ns DESC) = 1
), host_step_kernels AS (
    SELECT a.run_id, a.pass, a.start_ns, a.end_ns, k.correlation_id, st.from_ns, st.to_ns
    FROM _assigned a JOIN host_step st USING (run_id, pass) JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
), step_kernels AS (
    -- the kernels launched inside the host step annotation, or on the device inside its GPU-side copy
    SELECT h.run_id, h.pass, h.start_ns, h.end_ns
    FROM host_step_kernels h JOIN launches_of('host_step_kernels') l USING (run_id, correlation_id)
    WHERE l.call_ns >= h.from_ns AND l.call_ns < h.to_ns
    UNION ALL
    SELECT a.run_id, a.pass, a.start_ns, a.end_ns
    FROM _assigned a JOIN device_step st USING (run_id, pass)
    WHERE a.start_ns >= st.from_ns AND a.start_ns < st.to_ns
), step_span AS (
    SELECT run_id, pass, max(end_ns) - min(start_ns) AS span_ns FROM step_kernels GROUP BY ALL
), noted AS (
    SELECT *, CASE WHEN partial THEN 'partial'
                   WHEN pass >= min(pass) FILTER (WHERE steady) OVER (PARTITION BY run_id) THEN 'steady-state'
                   WHEN min(pass) FILTER (WHERE steady) OVER (PARTITION BY run_id) IS NOT NULL THEN 'cold-start'
                   ELSE '' END AS note
    FROM flagged
)
SELECT n.run_id, r.name AS run, n.pass, $phase AS phase, i.step, i.microbatch, i.step_kind, i.tokens, i.requests,
    n.anchors, pp.kernels,
    us(pp.sum_ns) AS sum_us, us(pp.last_ns - pp.first_ns) AS wall_us,
    us(pp.first_ns - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS start_us,
    us(pp.last_ns - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS end_us,
    us(round(n.avg_wall_ns)::BIGINT) AS avg_layer_us, us(n.l0_ns) AS first_layer_us,
    us(CASE WHEN i.tokens > 0 THEN round(coalesce(ss.span_ns, pp.last_ns - pp.first_ns) / i.tokens)::BIGINT END)
        AS us_per_token, n.note
FROM noted n JOIN per_pass pp USING (run_id, pass) JOIN runs r USING (run_id)
LEFT JOIN _pass_info i USING (run_id, pass) LEFT JOIN step_span ss USING (run_id, pass);
CREATE TEMP TABLE IF NOT EXISTS _pass_rows AS SELECT * FROM _pass_phase LIMIT 0;
INSERT INTO _pass_rows SELECT * FROM _pass_phase;
SELECT * EXCLUDE (run_id) FROM _pass_rows
ORDER BY list_position($run_ids, run_id), phase DESC, pass;
