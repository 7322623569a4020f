-- Fill a run's summary columns from its kernels: the kernels_raw rows of an Ascend CSV run, or the device
-- activities in trace_events of a Chrome run (not the NPU runtime tasks, kind 'npu_task').
-- Inputs: kernels_raw, trace_events of run $run_id.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: runs.kernel_rows, kernel_count, first_start_ns, last_end_ns, device_id, device_kind and
--   trace_start_ns of the run.
-- Output: rows (last statement), exactly one:
--   kernel_rows BIGINT: rows ingested
--   duplicates BIGINT: rows not counted
UPDATE runs SET
    kernel_rows = s.n, kernel_count = s.kept, first_start_ns = s.first_start, last_end_ns = s.last_end,
    device_id = s.device_id
FROM (SELECT count(*) AS n, count(*) FILTER (WHERE dup IS NULL) AS kept, min(start_ns) AS first_start,
             max(start_ns + dur_ns) AS last_end, min(device_id) AS device_id
      FROM (SELECT start_ns, dur_ns, device_id, dup FROM kernels_raw WHERE run_id = $run_id
            UNION ALL
            SELECT start_ns, dur_ns, coalesce(device_id, TRY_CAST(pid AS INTEGER)), NULL
            FROM trace_events WHERE run_id = $run_id AND kind IS NOT NULL AND kind <> 'npu_task')) s
WHERE runs.run_id = $run_id;
-- an on-device per-core trace (tasks on AIC/AIV cores) comes from an NPU whatever its file looked like;
-- its pids are views of the trace, not a device number
UPDATE runs SET device_kind = 'npu', device_id = NULL
WHERE run_id = $run_id AND EXISTS (SELECT 1 FROM trace_events WHERE run_id = $run_id AND kind = 'task');
-- the trace's first event (host side included): where a viewer such as Perfetto puts its time zero
UPDATE runs SET trace_start_ns = coalesce(
    (SELECT min(start_ns) FROM trace_events WHERE run_id = $run_id AND ph IN ('X', 'M')), first_start_ns)
WHERE run_id = $run_id;
SELECT kernel_rows, kernel_rows - kernel_count AS duplicates FROM runs WHERE run_id = $run_id;
