-- Fill the runs' summary columns from its kernels: the kernels_raw rows of an Ascend CSV run, or the device
-- activities in trace_events of a Chrome run (not the NPU runtime tasks, kind 'npu_task').
-- Inputs: kernels_raw, trace_events of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
-- Output: runs.kernel_rows, kernel_count, first_start_ns, last_end_ns, device_id, device_kind and
--   trace_start_ns of the runs.
-- Output: rows (last statement), one per run of $run_ids, in run order:
--   run_id INTEGER: the run
--   kernel_rows BIGINT: rows ingested
--   duplicates BIGINT: rows not counted
UPDATE runs SET
    kernel_rows = s.n, kernel_count = s.kept, first_start_ns = s.first_start, last_end_ns = s.last_end,
    device_id = s.device_id
FROM (SELECT r.run_id, count(x.one) AS n, count(x.one) FILTER (WHERE x.dup IS NULL) AS kept,
             min(x.start_ns) AS first_start, max(x.start_ns + x.dur_ns) AS last_end, min(x.device_id) AS device_id
      FROM (SELECT unnest($run_ids::INTEGER[]) AS run_id) r
      LEFT JOIN (SELECT run_id, 1 AS one, start_ns, dur_ns, device_id, dup FROM kernels_raw
                 WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]))
                 UNION ALL
                 SELECT run_id, 1, start_ns, dur_ns, coalesce(device_id, TRY_CAST(pid AS INTEGER)), NULL
                 FROM trace_events
                 WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND kind IS NOT NULL AND kind <> 'npu_task') x
      USING (run_id)
      GROUP BY r.run_id) s
WHERE runs.run_id = s.run_id;
-- an on-device per-core trace (tasks on AIC/AIV cores) comes from an NPU whatever its file looked like;
-- its pids are views of the trace, not a device number
UPDATE runs SET device_kind = 'npu', device_id = NULL
WHERE run_id IN (SELECT DISTINCT run_id FROM trace_events
                 WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND kind = 'task');
-- the trace's first event (host side included): where a viewer such as Perfetto puts its time zero
UPDATE runs SET trace_start_ns = coalesce(t.first, runs.first_start_ns)
FROM (SELECT r.run_id, min(e.start_ns) AS first FROM (SELECT unnest($run_ids::INTEGER[]) AS run_id) r
      LEFT JOIN trace_events e ON e.run_id = r.run_id AND e.ph IN ('X', 'M') GROUP BY r.run_id) t
WHERE runs.run_id = t.run_id;
SELECT run_id, kernel_rows, kernel_rows - kernel_count AS duplicates FROM runs
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) ORDER BY run_id;
