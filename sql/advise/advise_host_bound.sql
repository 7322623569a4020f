-- Advise rule `host-bound`: the step waited on the host.
-- Trigger: on the critical paths of the run's steps (report critical-path --step N for each ProfilerStep#N,
-- advise_host_steps.sql; the whole trace without steps: critical_path_*.sql), the host's own work (host_op:
-- launch calls, framework ops and Python between launches) sums to at least $min_pct % of the run's step time
-- (_adv_runs.base_ns). The launching thread in no op (host_gap) is not counted: what it waited for is not
-- in the trace, and once a path reaches the host thread it follows it back to the step's start, through
-- stretches where the host was ahead and idle. A launch_latency is not the host's either: the call had
-- returned and the device had not started.
-- Threshold source: 10 % by default. A device-bound step launches ahead of the device, and its path touches
-- the host only where the step starts (~1 % of a millisecond step); a path on the host for a tenth of the step
-- is a step that a faster host, or no host at all (a captured graph), would shorten.
-- At stake: that host work on the paths: with the host infinitely fast, the device would have started the
-- work after it that much earlier.
-- Limits: a run without host calls (kernel_details.csv, a device-only trace) has no host on its path: silent.
-- A sync on the host is not the host's own work (sync_wait); rule idle-gap reads the gap it leaves.
-- Host work on the paths inside a launch-bound stretch (_adv_launch_spans: from its first launch call to its last
-- kernel's end) is left to rule launch-bound. A run without steps counts its path inside the device's first
-- start and last end only (its base, the span): a graph-capture trace's host work before its first kernel is no
-- wait of the device's, and counted whole it made the share exceed 100 %.
-- Inputs: _cp_path (critical_path_segments.sql: one path per run and step), _adv_runs (advise_runs.sql),
--   _adv_launch_spans (advise_launch_bound.sql).
-- Parameters:
--   $min_pct DOUBLE: the least share of the step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: host-bound
--   run_id INTEGER: the run
--   step BIGINT: the step with the most host work on its path; NULL without steps
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the host work (host_op) on the steps' paths
--   base_ns BIGINT: the run's step time (_adv_runs.base_ns), the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the split by category and the report command
INSERT INTO _adv_findings BY NAME
WITH segs AS (
    -- host work inside a launch-bound stretch (the host issuing short kernels as fast as it can) is rule
    -- launch-bound's. A run without steps is judged over its span (its base): its path over the whole
    -- trace counts only inside the device's first start and last end, where the device could have worked
    -- (a graph-capture trace's host work before its first kernel is no wait of the device's)
    SELECT c.path::INTEGER AS run_id, c.step, c.category, c.start_ns AS s, c.end_ns AS e
    FROM _cp_path c
    WHERE c.category IN ('host_op', 'host_gap')
), clipped AS (
    SELECT g.run_id, g.step, g.category,
        CASE WHEN r.base = 'span' THEN greatest(least(g.e, r.last_ns) - greatest(g.s, r.first_ns), 0)
             ELSE g.e - g.s END AS ns,
        CASE WHEN r.base = 'span' THEN greatest(g.s, r.first_ns) ELSE g.s END AS s,
        CASE WHEN r.base = 'span' THEN least(g.e, r.last_ns) ELSE g.e END AS e
    FROM segs g JOIN _adv_runs r USING (run_id)
), launched AS (
    SELECT *,
        CASE WHEN category = 'host_op' AND ns > 0 THEN coalesce((
            SELECT sum(greatest(least(c.e, l.end_ns) - greatest(c.s, l.host_start_ns), 0))
            FROM _adv_launch_spans l WHERE l.run_id = c.run_id), 0) ELSE 0 END AS launch_ns
    FROM clipped c
), host AS (
    SELECT run_id, step, category, sum(ns - launch_ns)::BIGINT AS ns FROM launched GROUP BY ALL
), per AS (
    SELECT run_id, sum(ns) FILTER (WHERE category = 'host_op')::BIGINT AS op_ns,
        sum(ns) FILTER (WHERE category = 'host_gap')::BIGINT AS gap_ns
    FROM host GROUP BY run_id
), worst AS (
    SELECT run_id, arg_max(step, (ns, -step)) AS step, max(ns) AS ns, count(step) AS steps
    FROM (SELECT run_id, step, sum(ns) FILTER (WHERE category = 'host_op') AS ns FROM host GROUP BY ALL)
    GROUP BY run_id
)
SELECT 'host-bound' AS rule, p.run_id, w.step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel,
    p.op_ns AS at_stake_ns, r.base_ns,
    'the step waited on the host''s own work for ' || CAST(us(p.op_ns) AS VARCHAR) || ' us of its critical path ('
        || CAST(round(100.0 * p.op_ns / nullif(r.base_ns, 0), 1)::DECIMAL(7, 1) AS VARCHAR)
        || ' % of the step time): launch calls and the framework''s ops between them, the device idle meanwhile'
        AS finding,
    'on the steps'' paths: host_op ' || CAST(us(p.op_ns) AS VARCHAR) || ' us, and host_gap '
        || CAST(us(coalesce(p.gap_ns, 0)) AS VARCHAR) || ' us (the launching thread in no op, not counted)'
        || CASE WHEN w.steps > 1 THEN '; the most in step ' || w.step || ' (' || CAST(us(w.ns) AS VARCHAR) || ' us)'
                ELSE '' END
        || ': tracedb report critical-path ' || r.cmd || ' --by category'
        || CASE WHEN w.step IS NOT NULL THEN ' --step ' || w.step ELSE '' END AS evidence
FROM per p JOIN worst w USING (run_id) JOIN _adv_runs r USING (run_id)
WHERE p.op_ns > 0 AND 100.0 * p.op_ns >= $min_pct * r.base_ns;
