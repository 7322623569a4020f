-- Report `cores --scheduler`: time per scheduler phase or marker on each AICPU thread (the processes
-- named like an AICPU view, scheduler or orchestrator), e.g. Orchestrating, Scheduling, Phase1-4, Drain.
-- A phase is the event name without a trailing "(...)" ("idle(3)" -> "idle").
-- Inputs: host_events, tracks, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, process, thread, phase):
--   run VARCHAR: the run's name
--   process VARCHAR: the process name
--   thread VARCHAR: the thread name (else its tid)
--   phase VARCHAR: the phase
--   count BIGINT: its events
--   sum_us DECIMAL(38,3): their time
--   share_pct DECIMAL(6,2): of that thread's phase time
WITH ev AS (
    SELECT h.run_id, t.process_name AS process, coalesce(t.thread_name, h.tid) AS thread,
        regexp_replace(h.name, '\s*\([^)]*\)$', '') AS phase, h.dur_ns
    FROM host_events h
    JOIN tracks t ON t.run_id = h.run_id AND t.pid = h.pid AND t.tid = h.tid
    WHERE h.run_id IN (SELECT unnest($run_ids)) AND regexp_matches(coalesce(t.process_name, ''), '(?i)AICPU|sched|orch')
), grouped AS (
    SELECT run_id, process, thread, phase, count(*) AS n, sum(dur_ns) AS ns FROM ev GROUP BY ALL
)
SELECT r.name AS run, g.process, g.thread, g.phase, g.n AS count, us(g.ns) AS sum_us,
    round(100.0 * g.ns / nullif(sum(g.ns) OVER (PARTITION BY g.run_id, g.process, g.thread), 0), 2)::DECIMAL(6, 2) AS share_pct
FROM grouped g JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, g.run_id), g.process, g.thread, g.ns DESC, g.phase;
