-- The complete events of a per-core trace that no core took, so that the ingest can say so: those left
-- host events on the threads of its core processes, after ingest_chrome_cores.sql and
-- ingest_chrome_devices.sql. A core process (outside the AICPU view, scheduler and orchestrator ones) holds
-- a thread named like a core (placed or not), or its own name spells a core type ('AICore View'). Any other
-- thread of it holding complete events (a name without a core type, no thread_name at all) is a lane
-- that could not be read as a core. Traces without such processes (Kineto, Ascend) give no row.
-- Inputs: _lanes (ingest_chrome_cores.sql), tracks, trace_events of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
-- Output: rows, one per (run, thread name, reason) with such events, most events first:
--   run_id INTEGER: the run
--   thread VARCHAR: the thread's name ('tid N' for a thread without one)
--   events BIGINT: its complete events left out of the per-core tasks
--   reason VARCHAR: type (its name spells no core type, or two), number (no number, or two, where one is
--     needed: _lanes), shared (another name of its process gives the same core) or unnamed (no thread_name)
WITH procs AS (
    SELECT DISTINCT run_id, pid FROM _lanes WHERE core_class IS NOT NULL OR unplaced IS NOT NULL
    UNION
    SELECT DISTINCT run_id, pid FROM tracks
    WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]))
      AND regexp_matches(coalesce(process_name, ''), '(?i)(^|[^a-z])ai(c|v|[ _-]?core|[ _-]?vector)([^a-z]|$)')
      AND NOT regexp_matches(process_name, '(?i)AICPU|sched|orch')
), left_out AS (
    SELECT e.run_id, e.pid, e.tid, count(*) AS events
    FROM trace_events e JOIN procs p ON p.run_id = e.run_id AND p.pid = e.pid
    WHERE e.run_id IN (SELECT unnest($run_ids::INTEGER[])) AND e.ph = 'X' AND e.kind IS NULL
    GROUP BY ALL
)
SELECT o.run_id, coalesce(l.thread_name, 'tid ' || coalesce(o.tid, 'NULL')) AS thread,
    sum(o.events)::BIGINT AS events,
    coalesce(l.unplaced, CASE WHEN l.thread_name IS NULL THEN 'unnamed' ELSE 'type' END) AS reason
FROM left_out o LEFT JOIN _lanes l ON l.run_id = o.run_id AND l.pid = o.pid AND l.tid = o.tid
GROUP BY ALL
ORDER BY o.run_id, events DESC, thread;
