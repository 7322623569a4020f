-- Advise rule `low-utilisation`: stretches in which the device was idle most of the time, in gaps each too short
-- for rule idle-gap, that no more specific rule explains.
-- A gap is a stretch of the device timeline (the union of its kernels, communication ops, copies and fills) of
-- at least $min_gap_ns with nothing running. Consecutive gaps form one stretch while the device's busy time
-- between two of them is at most half their summed length (the device at most 50 % busy around it); a stretch
-- has two gaps or more and spans from its first gap's start to its last gap's end.
-- Trigger: a stretch of at least $min_span_ns whose unexplained idle (its gaps' time without what other rules
-- claim: advise_claims.sql, and the gaps rule idle-gap counted where it fired) is at least
-- (100 - $max_busy_pct) % of its span; the run's summed unexplained idle in such stretches is at least $min_pct %
-- of its step time (_adv_runs.base_ns).
-- Threshold source: nsys's expert rule flags chunks of the timeline under 50 % GPU utilisation ($max_busy_pct
-- 50); 20 us: a gap that long is a few launches' worth, more than the ~5-20 us an eager launch costs (rule
-- launch-bound reads shorter ones); 1 ms: the scale of rule idle-gap, below which a stretch of a few kernels is
-- noise; 3 %: severity low.
-- At stake: the unexplained idle of the stretches.
-- Evidence: the longest stretches (busy share, gaps, idle) and what the step's critical path did in the longest
-- (report critical-path's categories there: host_gap, the launching thread outside any op; device_gap, a
-- stream waiting on another; sync_wait; ...), from _cp_path when the run has a host side.
-- Limits: a run without steps counts every stretch of its span. The critical path says what the device waited
-- for only where the trace has the host side.
-- Inputs: _adv_idle (advise_timeline.sql), _adv_marks (advise_runs.sql), _adv_claimed (advise_claims.sql), _adv_gaps and _adv_findings (rule idle-gap's
--   gaps, where it fired), _cp_path (critical_path_segments.sql, per run and step), _adv_runs (advise_runs.sql).
-- Parameters:
--   $min_gap_ns BIGINT: the shortest gap counted
--   $min_span_ns BIGINT: the shortest stretch
--   $max_busy_pct DOUBLE: the most a stretch's device may be busy (its unexplained idle at least the rest), %
--   $min_pct DOUBLE: the least share of the run's step time, %
-- Output: TEMP _adv_low_stretches, one row per stretch at or above its thresholds:
--   run_id INTEGER: the run
--   device_id INTEGER: the device (-1: none recorded)
--   s BIGINT: its first gap's start, ns
--   e BIGINT: its last gap's end, ns
--   gaps BIGINT: its gaps
--   idle_ns BIGINT: their time
--   unexplained_ns BIGINT: their time without what other rules claim
--   step BIGINT: the ProfilerStep#N its midpoint lies in, else the Step Id most of its gaps follow; NULL: none
--   first_ns BIGINT: the run's first activity's start
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: low-utilisation
--   run_id INTEGER: the run
--   step BIGINT: the step of every stretch when they all lie in one, else NULL
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the stretches' unexplained idle
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the longest stretches, the critical path's categories in the longest, and the report command
CREATE OR REPLACE TEMP TABLE _adv_low_stretches AS
WITH gaps AS (
    SELECT run_id, device_id, s AS gs, e AS ge, prev_step, first_ns,
        lag(e) OVER g AS before_ge, lag(e - s) OVER g AS before_len
    FROM _adv_idle
    WHERE e - s >= $min_gap_ns
    WINDOW g AS (PARTITION BY run_id, device_id ORDER BY s)
), numbered AS (
    -- a gap opens a new stretch unless the busy time since the gap before is at most half their summed length
    SELECT *,
        sum(CASE WHEN before_ge IS NOT NULL AND 2 * (gs - before_ge) <= before_len + (ge - gs) THEN 0 ELSE 1 END)
            OVER (PARTITION BY run_id, device_id ORDER BY gs ROWS UNBOUNDED PRECEDING) AS stretch
    FROM gaps
), claimed AS (
    -- the claimed time in each gap: the claimed islands in it (disjoint), or all of it when rule idle-gap
    -- counted it (it counts a gap's time that no other rule claims)
    SELECT n.run_id, n.device_id, n.gs,
        CASE WHEN EXISTS (SELECT 1 FROM _adv_gaps g
                          WHERE g.run_id = n.run_id AND g.device_id = n.device_id AND g.gap_start_ns = n.gs
                            AND (g.run_id, 'idle-gap') IN (SELECT run_id, rule FROM _adv_findings))
             THEN n.ge - n.gs
             ELSE coalesce((SELECT sum(least(c.e, n.ge) - greatest(c.s, n.gs)) FROM _adv_claimed c
                            WHERE c.run_id = n.run_id AND c.s < n.ge AND c.e > n.gs), 0) END AS ns
    FROM numbered n
), stretches AS (
    SELECT n.run_id, n.device_id, n.stretch, count(*) AS gaps, min(n.gs) AS s, max(n.ge) AS e,
        sum(n.ge - n.gs)::BIGINT AS idle_ns, sum(n.ge - n.gs - coalesce(c.ns, 0))::BIGINT AS unexplained_ns,
        mode(n.prev_step) AS prev_step, any_value(n.first_ns) AS first_ns
    FROM numbered n LEFT JOIN claimed c USING (run_id, device_id, gs)
    GROUP BY n.run_id, n.device_id, n.stretch
    HAVING count(*) >= 2
)
SELECT x.run_id, x.device_id, x.s, x.e, x.gaps, x.idle_ns, x.unexplained_ns,
    coalesce((SELECT min(m.step) FROM _adv_marks m
              WHERE m.run_id = x.run_id AND (x.s + x.e) // 2 >= m.start_ns AND (x.s + x.e) // 2 < m.end_ns),
             x.prev_step) AS step,
    x.first_ns
FROM stretches x
WHERE x.e - x.s >= $min_span_ns AND 100.0 * x.unexplained_ns >= (100.0 - $max_busy_pct) * (x.e - x.s);
INSERT INTO _adv_findings BY NAME
WITH path AS (
    -- the critical path's time by category inside the longest stretch of each run (its own run's path)
    SELECT l.run_id, c.category, sum(least(c.end_ns, l.e) - greatest(c.start_ns, l.s))::BIGINT AS ns
    FROM (SELECT * FROM _adv_low_stretches QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY e - s DESC, s) = 1) l
    JOIN _cp_path c ON c.path = l.run_id AND c.start_ns < l.e AND c.end_ns > l.s
    GROUP BY l.run_id, c.category
), path_text AS (
    SELECT run_id, string_agg(category || ' ' || CAST(us(ns) AS VARCHAR) || ' us', ', ' ORDER BY ns DESC, category)
        AS cats
    FROM path WHERE ns > 0 GROUP BY run_id
), per AS (
    SELECT run_id, count(*) AS n, sum(unexplained_ns)::BIGINT AS ns, sum(e - s)::BIGINT AS span_ns,
        sum(e - s - idle_ns)::BIGINT AS busy_ns,
        CASE WHEN count(DISTINCT step) = 1 AND count(step) = count(*) THEN min(step) END AS step,
        arg_max(step, (e - s, -s)) AS worst_step,
        string_agg('[' || CAST(us(s - first_ns) AS VARCHAR) || ', ' || CAST(us(e - first_ns) AS VARCHAR) || ') us'
                   || coalesce(' in step ' || step, '') || ': busy '
                   || CAST(round(100.0 * (e - s - idle_ns) / (e - s), 1)::DECIMAL(5, 1) AS VARCHAR) || ' %, '
                   || gaps || ' gaps, ' || CAST(us(unexplained_ns) AS VARCHAR) || ' us idle unexplained', '; '
                   ORDER BY e - s DESC, s) FILTER (WHERE place <= 3) AS shown
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY e - s DESC, s) AS place FROM _adv_low_stretches)
    GROUP BY run_id
)
SELECT 'low-utilisation' AS rule, p.run_id, p.step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel,
    p.ns AS at_stake_ns, r.base_ns,
    'the device was busy ' || CAST(round(100.0 * p.busy_ns / p.span_ns, 1)::DECIMAL(5, 1) AS VARCHAR) || ' % of '
        || p.n || CASE WHEN p.n = 1 THEN ' stretch' ELSE ' stretches' END || ' (' || CAST(us(p.span_ns) AS VARCHAR)
        || ' us): ' || CAST(us(p.ns) AS VARCHAR) || ' us idle in short gaps no other rule explains' AS finding,
    'stretches from the run''s first activity' || CASE WHEN p.n > 3 THEN ' (the 3 longest)' ELSE '' END || ': '
        || p.shown || coalesce('; the critical path in the longest: ' || t.cats, '')
        || ': tracedb report critical-path ' || r.cmd || ' --by category' || coalesce(' --step ' || p.worst_step, '')
        AS evidence
FROM per p JOIN _adv_runs r USING (run_id) LEFT JOIN path_text t USING (run_id)
WHERE 100.0 * p.ns >= $min_pct * r.base_ns;
