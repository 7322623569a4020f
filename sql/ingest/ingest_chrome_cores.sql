-- On-device per-core traces (runtime swimlanes, TraCR): the complete events of threads that are cores
-- are tasks on a device, not host events. Rules are tried in order, first match wins: the user's first
-- (`--core-rule`), then the built-in ones: a name starting AIC or AIV followed by a separator or nothing
-- ('AIC_3', 'AIV 12', 'AIC (core3)'; not 'AICPU_0').
-- Threads of AICPU view / scheduler / orchestrator processes are never cores: threads named like cores
-- there record dispatch and completion, not execution.
-- Inputs: tracks, trace_events of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
--   $patterns VARCHAR[]: the ordered rules' RE2 patterns on the thread name
--   $classes VARCHAR[]: the core class each rule gives, in the order of $patterns
-- Output: those events become kind 'task' (kernels, no longer host events), core_type the class; the
--   threads' tracks rows record the class in core_class (report cores counts cores without tasks from
--   them). TEMP _cores is scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _cores AS
WITH rules AS (
    SELECT unnest(range(len($patterns))) AS ord, unnest($patterns) AS pattern, unnest($classes) AS core_class
)
SELECT t.run_id, t.pid, t.tid, arg_min(r.core_class, r.ord) AS core_class
FROM tracks t JOIN rules r ON regexp_matches(t.thread_name, r.pattern)
WHERE t.run_id IN (SELECT unnest($run_ids::INTEGER[]))
  AND NOT regexp_matches(coalesce(t.process_name, ''), '(?i)AICPU|sched|orch')
GROUP BY ALL;
UPDATE trace_events SET kind = 'task', core_type = c.core_class FROM _cores c
WHERE trace_events.run_id = c.run_id AND trace_events.ph = 'X' AND trace_events.kind IS NULL
  AND trace_events.pid = c.pid AND trace_events.tid = c.tid;
UPDATE tracks SET core_class = c.core_class FROM _cores c
WHERE tracks.run_id = c.run_id AND tracks.pid = c.pid AND tracks.tid = c.tid;
DROP TABLE _cores;
