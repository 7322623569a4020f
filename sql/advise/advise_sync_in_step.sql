-- Advise rule `sync-in-step`: the host synchronised with the device inside a step, the device drained, and it
-- sat idle until the host launched again.
-- Trigger: a synchronising call (sync_call in macros.sql: cudaDeviceSynchronize, cudaStreamSynchronize,
-- cudaEventSynchronize, a blocking cudaMemcpy or Memset, hip* alike, AscendCL@aclrtSynchronizeStream / Device
-- / Event) that starts inside a ProfilerStep#N annotation, that the device held (its timeline was still busy
-- when the call began: the call blocked), and that returned while the device was idle. At stake per call: that
-- idle stretch of the device timeline (the union of its kernels, communication ops, copies and fills), from the
-- end of the work it drained to the next activity's start, clipped to the step's end: the drain-and-relaunch
-- bubble the call made. A stretch two calls returned into counts once. One finding per run whose summed time
-- at stake is at least $min_pct % of its step time (_adv_runs.base_ns).
-- Threshold source: 1 % by default. A step without host synchronisation keeps the device queue full, so the
-- bubbles are this rule's alone; the severity (3 % low and up, advise_findings.sql) ranks what it finds. The
-- call's own time is not counted: the device was busy while the host waited.
-- Limits: a run without host calls (kernel_details.csv, a device-only trace) shows no call: silent. A call the
-- device did not hold (it was idle already when the host called) made no bubble: rule idle-gap reads long
-- idle stretches whatever their cause, and leaves this rule's bubbles to it when it fires (advise_claims.sql).
-- Inputs: _adv_idle (advise_timeline.sql), _adv_marks (advise_runs.sql), host_events, _adv_runs (advise_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $min_pct DOUBLE: the least share of the step time, %
-- Output: TEMP _adv_sync_bubbles, one row per idle stretch of the device timeline a held call returned into:
--   run_id INTEGER: the run
--   device_id INTEGER: the device (-1: none recorded)
--   idle_s BIGINT: the stretch's start (the end of the work the call drained), ns
--   name VARCHAR: the call (the first, when two returned into it)
--   step BIGINT: the ProfilerStep#N the call began in
--   ns BIGINT: the bubble: from idle_s to the next activity's start, clipped to the step's end
--   first_ns BIGINT: the run's first activity's start
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: sync-in-step
--   run_id INTEGER: the run
--   step BIGINT: the step of every bubble when they all lie in one, else NULL
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the bubbles' summed time
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the longest bubbles with their call and step, and the report command for the longest's step
CREATE OR REPLACE TEMP TABLE _adv_sync_bubbles AS
WITH idle AS (
    -- the device timeline's idle stretches
    SELECT run_id, device_id, s AS idle_s, e AS idle_e, first_ns FROM _adv_idle
), marks AS (
    SELECT run_id, step, start_ns AS ms, end_ns AS me FROM _adv_marks
), calls AS (
    SELECT h.run_id, h.name, h.start_ns AS cs, h.start_ns + h.dur_ns AS ce, m.step, m.me
    FROM host_events h
    JOIN marks m ON m.run_id = h.run_id AND h.start_ns >= m.ms AND h.start_ns < m.me
    WHERE h.run_id IN (SELECT unnest($run_ids)) AND sync_call(h.cat, h.name)
)
-- the idle stretch each held call returned into (it began after the call did), the first call per stretch
SELECT i.run_id, i.device_id, i.idle_s, arg_min(c.name, c.cs) AS name, arg_min(c.step, c.cs) AS step,
    least(any_value(i.idle_e), arg_min(c.me, c.cs)) - i.idle_s AS ns, any_value(i.first_ns) AS first_ns
FROM calls c
JOIN idle i ON i.run_id = c.run_id AND i.idle_s > c.cs AND i.idle_s <= c.ce AND i.idle_e > c.ce
GROUP BY i.run_id, i.device_id, i.idle_s;
INSERT INTO _adv_findings BY NAME
WITH per AS (
    SELECT run_id, count(*) AS n, sum(ns)::BIGINT AS ns, max(ns) AS longest,
        CASE WHEN count(DISTINCT step) = 1 THEN min(step) END AS step,
        string_agg(name || ' in step ' || step || ': the device idle ' || CAST(us(ns) AS VARCHAR) || ' us from '
                   || CAST(us(idle_s - first_ns) AS VARCHAR) || ' us', '; ' ORDER BY ns DESC, idle_s)
            FILTER (WHERE place <= 3) AS shown,
        arg_max(step, (ns, -idle_s)) AS worst_step
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY ns DESC, idle_s) AS place FROM _adv_sync_bubbles
          WHERE ns > 0)
    GROUP BY run_id
)
SELECT 'sync-in-step' AS rule, p.run_id, p.step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel, p.ns AS at_stake_ns,
    r.base_ns,
    p.n || ' synchronising ' || CASE WHEN p.n = 1 THEN 'call' ELSE 'calls' END || ' inside steps drained the device, '
        || 'then it waited for the next launch: ' || CAST(us(p.ns) AS VARCHAR) || ' us idle in all (the longest '
        || CAST(us(p.longest) AS VARCHAR) || ' us)' AS finding,
    'the calls and the idle after each, from the run''s first activity' || CASE WHEN p.n > 3 THEN ' (the 3 longest)'
        ELSE '' END || ': ' || p.shown || '; the step''s path through them (sync_wait, then the relaunch): '
        || 'tracedb report critical-path ' || r.cmd || ' --step ' || p.worst_step AS evidence
FROM per p JOIN _adv_runs r USING (run_id)
WHERE 100.0 * p.ns >= $min_pct * r.base_ns;
