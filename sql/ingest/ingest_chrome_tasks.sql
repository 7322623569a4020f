-- NPU facts of a Chrome trace, in the run's final transaction, after ingest_chrome_tracks.
-- 1. Ascend trace_view.json tasks have no category: they are the complete events of the process named
--    'Ascend Hardware'. Those that are runtime machinery, not operators (npu_runtime_task in macros.sql:
--    HCCL notify record/wait, write value, SDMA and PCIe DMA copies, event record/wait, placeholders),
--    get kind 'npu_task': kernel_details.csv lists none of them, and the kernels view leaves them out (the
--    AlexNet capture: 535 tasks, 187 operators; with the 4 collectives below, kernel_details' 191 rows).
--    The collectives themselves (hcom_* on the HCCL process's "Group N Communication" threads) are kind
--    'comm', as kernel_details.csv lists them; their sub-tasks on the "Plane N" threads are 'npu_task'.
--    Such a collective runs on the device stream of its hardware tasks (the SDMA, Notify Wait and Write
--    Value tasks on `Ascend Hardware` that share its connection id): it takes their first task's device and
--    stream, so that it lies on the stream an EVENT_RECORD after it is recorded on (the AlexNet capture's
--    four all-reduces: HCCL thread 0, stream 4), not on a stream of its own numbered by HCCL's thread.
-- 2. task_id, core_type (Ascend's task type), function_id and core_id (FuncId and CoreId of the runtime
--    swimlane's event-hint "Task:r2t0, FuncId:0, CoreId:2") from extra_args, on the few events that have it
--    (ingest_chrome_part writes those facts as an object whose first key is the name; a collective's or an
--    op's shapes, which start otherwise, are not rewritten: 12,672 rows of 24 ranks of a TP8 job, 6 ms).
-- Inputs: trace_events and tracks of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
-- Output: trace_events rows of the run updated (kind, task_id, core_type, function_id, core_id; a collective's
--   device_id and stream_id).
UPDATE trace_events SET kind = 'kernel'
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND ph = 'X' AND cat IS NULL AND kind IS NULL
  AND (run_id, pid) IN (SELECT run_id, pid FROM tracks WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND process_name = 'Ascend Hardware');
UPDATE trace_events SET
    task_id = TRY_CAST(extra_args ->> 'task_id' AS BIGINT),
    core_type = CASE WHEN kind IS NOT NULL THEN extra_args ->> 'task_type' END,
    function_id = TRY_CAST(regexp_extract(extra_args ->> 'hint', 'FuncId:\s*(\d+)', 1) AS BIGINT),
    core_id = TRY_CAST(regexp_extract(extra_args ->> 'hint', 'CoreId:\s*(\d+)', 1) AS INTEGER)
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND ph = 'X' AND starts_with(extra_args, '{"name":');
UPDATE trace_events SET kind = 'npu_task'
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND kind = 'kernel' AND npu_runtime_task(core_type, name)
  AND (run_id, pid) IN (SELECT run_id, pid FROM tracks WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND process_name = 'Ascend Hardware');
UPDATE trace_events t SET kind = CASE WHEN k.thread_name LIKE '%Communication%' AND starts_with(t.name, 'hcom_')
                                     THEN 'comm' ELSE 'npu_task' END
FROM tracks k
WHERE t.run_id IN (SELECT unnest($run_ids::INTEGER[])) AND t.ph = 'X' AND t.cat IS NULL AND t.kind IS NULL
  AND k.run_id = t.run_id AND k.pid = t.pid AND k.tid IS NOT DISTINCT FROM t.tid AND k.process_name = 'HCCL';
UPDATE trace_events t SET device_id = h.device_id, stream_id = h.stream_id
FROM (
    SELECT c.run_id, c.seq, arg_min(coalesce(w.device_id, TRY_CAST(w.pid AS INTEGER)), w.start_ns) AS device_id,
        arg_min(coalesce(w.stream_id, TRY_CAST(w.tid AS BIGINT)), w.start_ns) AS stream_id
    FROM trace_events c
    JOIN trace_events w ON w.run_id = c.run_id AND w.correlation_id = c.correlation_id AND w.kind = 'npu_task'
     AND w.ph = 'X'
    WHERE c.run_id IN (SELECT unnest($run_ids::INTEGER[])) AND c.kind = 'comm' AND c.ph = 'X'
      AND (c.run_id, c.pid) IN (SELECT run_id, pid FROM tracks WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]))
                                AND process_name = 'HCCL')
      AND (w.run_id, w.pid) IN (SELECT run_id, pid FROM tracks WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]))
                                AND process_name = 'Ascend Hardware')
    GROUP BY c.run_id, c.seq
) h
WHERE t.run_id = h.run_id AND t.seq = h.seq AND h.stream_id IS NOT NULL;
