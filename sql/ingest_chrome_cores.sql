-- On-device per-core traces (runtime swimlanes, TraCR): the complete events of threads that are cores
-- are tasks on a device, not host events. Inputs: tracks, host_events of run $run_id. Parameters: $run_id.
-- A thread is a core of class AIC or AIV when its name starts with that word followed by a separator
-- ('AIC_3', 'AIV 12', 'AIC (core3)'; not 'AICPU_0') and its process is not an AICPU view, scheduler or
-- orchestrator (threads named like cores there record dispatch and completion, not execution).
-- Output: those events move from host_events to kernels_raw with kind 'task', core_type the class.
CREATE OR REPLACE TEMP TABLE _cores AS
SELECT pid, tid, upper(regexp_extract(thread_name, '(?i)^(AIC|AIV)([_ (]|$)', 1)) AS core_class
FROM tracks
WHERE run_id = $run_id AND regexp_matches(thread_name, '(?i)^(AIC|AIV)([_ (]|$)')
  AND NOT regexp_matches(coalesce(process_name, ''), '(?i)AICPU|sched|orch');
INSERT INTO kernels_raw BY NAME
SELECT h.run_id, h.seq, h.start_ns, h.dur_ns, h.name, 'task' AS kind, c.core_class AS core_type,
    TRY_CAST(h.pid AS INTEGER) AS device_id, TRY_CAST(h.tid AS BIGINT) AS stream_id
FROM host_events h JOIN _cores c USING (pid, tid)
WHERE h.run_id = $run_id;
DELETE FROM host_events
WHERE run_id = $run_id AND (pid, tid) IN (SELECT (pid, tid) FROM _cores);
DROP TABLE _cores;
