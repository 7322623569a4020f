-- Advise rule `idle-gap`: the device sat idle for long stretches inside the run's span.
-- Trigger: a gap of the device timeline (the union of the device's kernels, communication ops, copies and
-- fills: report breakdown's activities, idle_us where none runs) of at least $min_gap_ns between the first
-- start and the last end of the run's activities on that device. Each gap's host side: the host event that
-- overlaps the gap longest (of those, the shortest: the innermost frame; ProfilerStep#N marks and the profiler's
-- own span, cat trace, left out), when
-- the run has host events.
-- Threshold source: 1 ms by default, the launch-latency scale (~5-20 us a launch) times a hundred: a gap that
-- long is never launch overhead alone but a host stall (synchronisation, data loading, Python work); lower it
-- with --threshold idle-gap.min_gap_us=... for decode steps of a few ms.
-- At stake: the gaps' summed time, one finding per run and device, without the time more specific rules
-- claim (advise_claims.sql: a pipeline stage's waits, the bubbles after synchronising calls, launch-bound
-- stretches, the host's work on a step's critical path): a gap counts when the rest is at least $min_gap_ns.
-- Inputs: _adv_idle (advise_timeline.sql), _adv_marks (advise_runs.sql), host_events, _adv_runs (advise_runs.sql), _adv_claimed
--   (advise_claims.sql).
-- Parameters:
--   $min_gap_ns BIGINT: the shortest gap reported
-- Output: TEMP _adv_gaps, one row per gap:
--   run_id INTEGER: the run
--   device_id INTEGER: the device
--   gap_start_ns BIGINT: the gap's start (the end of the activities before it), absolute ns
--   gap_end_ns BIGINT: its end (the next activity's start)
--   rel_start_ns BIGINT: its start from the run's first activity
--   claimed_ns BIGINT: the part of it other rules claim (_adv_claimed), left to them
--   claimed_by VARCHAR: those rules, comma-separated; NULL when none
--   step BIGINT: the ProfilerStep#N its start lies in; without one, the Step Id of the activity that ends at
--     its start (Ascend kernel_details.csv); NULL outside every step
--   host VARCHAR: the host event overlapping it longest (`name [cat]`, overlap); NULL without one
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run and device with gaps:
--   rule VARCHAR: idle-gap
--   run_id INTEGER: the run
--   step BIGINT: the step of every gap when they all lie in one, else NULL
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the gaps' summed time
--   base_ns BIGINT: the run's step time (_adv_runs.base_ns), the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the longest gaps with their host side, and the report command
CREATE OR REPLACE TEMP TABLE _adv_gaps AS
WITH ordered AS (
    SELECT run_id, device_id, s AS prev, e AS s, prev_step, first_ns FROM _adv_idle
), long AS (
    SELECT o.run_id, o.device_id, o.prev AS gap_start_ns, o.s AS gap_end_ns, o.prev - o.first_ns AS rel_start_ns,
        o.prev_step,
        -- the time in it other rules claim (disjoint islands)
        coalesce((SELECT sum(least(w.e, o.s) - greatest(w.s, o.prev)) FROM _adv_claimed w
                  WHERE w.run_id = o.run_id AND w.s < o.s AND w.e > o.prev), 0)::BIGINT AS claimed_ns,
        (SELECT string_agg(DISTINCT r.rule, ', ' ORDER BY r.rule)
         FROM _adv_claimed w, unnest(string_split(w.rules, ', ')) AS r(rule)
         WHERE w.run_id = o.run_id AND w.s < o.s AND w.e > o.prev) AS claimed_by
    FROM ordered o
    WHERE o.s - o.prev >= $min_gap_ns
), gaps AS (
    SELECT * FROM long WHERE gap_end_ns - gap_start_ns - claimed_ns >= $min_gap_ns
), host AS (
    SELECT g.run_id, g.device_id, g.gap_start_ns,
        arg_max(h.name || coalesce(' [' || h.cat || ']', '') || ' for '
                || CAST(us(least(h.start_ns + h.dur_ns, g.gap_end_ns) - greatest(h.start_ns, g.gap_start_ns))
                        AS VARCHAR) || ' us',
                (least(h.start_ns + h.dur_ns, g.gap_end_ns) - greatest(h.start_ns, g.gap_start_ns), -h.dur_ns))
            AS host
    FROM gaps g
    JOIN host_events h ON h.run_id = g.run_id AND h.start_ns < g.gap_end_ns AND h.start_ns + h.dur_ns > g.gap_start_ns
    WHERE h.cat IS DISTINCT FROM 'gpu_user_annotation' AND lower(coalesce(h.cat, '')) <> 'trace'
      AND NOT regexp_matches(h.name, '^ProfilerStep#\d+$')
    GROUP BY ALL
)
SELECT g.run_id, g.device_id, g.gap_start_ns, g.gap_end_ns, g.rel_start_ns, g.claimed_ns, g.claimed_by,
    coalesce((SELECT min(m.step) FROM _adv_marks m WHERE m.run_id = g.run_id AND g.gap_start_ns >= m.start_ns
        AND g.gap_start_ns < m.end_ns), g.prev_step) AS step,
    h.host
FROM gaps g
LEFT JOIN host h USING (run_id, device_id, gap_start_ns);
INSERT INTO _adv_findings BY NAME
WITH per AS (
    SELECT run_id, device_id, count(*) AS n, sum(gap_end_ns - gap_start_ns - claimed_ns)::BIGINT AS ns,
        max(gap_end_ns - gap_start_ns) AS longest,
        CASE WHEN count(DISTINCT step) = 1 AND count(step) = count(*) THEN min(step) END AS step,
        string_agg('[' || CAST(us(rel_start_ns) AS VARCHAR) || ', '
                   || CAST(us(rel_start_ns + gap_end_ns - gap_start_ns) AS VARCHAR) || ') us'
                   || coalesce(' in step ' || step, '')
                   || CASE WHEN claimed_ns > 0 THEN ' (' || CAST(us(claimed_ns) AS VARCHAR)
                           || ' us of it left to ' || claimed_by || ', not counted)' ELSE '' END
                   || ', host: ' || coalesce(host, 'no host event'), '; '
                   ORDER BY gap_end_ns - gap_start_ns DESC, gap_start_ns) FILTER (WHERE rank_in_run <= 3) AS shown,
        count(DISTINCT device_id) OVER (PARTITION BY run_id) AS devices
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id, device_id
                                       ORDER BY gap_end_ns - gap_start_ns DESC, gap_start_ns) AS rank_in_run
          FROM _adv_gaps)
    GROUP BY run_id, device_id
)
SELECT 'idle-gap' AS rule, p.run_id, p.step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel, p.ns AS at_stake_ns, r.base_ns,
    'device ' || CASE WHEN p.devices > 1 THEN p.device_id || ' ' ELSE '' END || 'idle ' || p.n
        || CASE WHEN p.n = 1 THEN ' time' ELSE ' times' END || ' for >= ' || CAST(us($min_gap_ns) AS VARCHAR)
        || ' us (' || CAST(us(p.ns) AS VARCHAR) || ' us in all, the longest ' || CAST(us(p.longest) AS VARCHAR)
        || ' us)' AS finding,
    'gaps from the run''s first activity' || CASE WHEN p.n > 3 THEN ' (the 3 longest)' ELSE '' END || ': '
        || p.shown || '; idle_us per step: tracedb report breakdown ' || r.cmd
        || CASE WHEN r.steps > 0 THEN ' --by step' ELSE '' END AS evidence
FROM per p JOIN _adv_runs r USING (run_id);
