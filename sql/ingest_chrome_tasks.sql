-- NPU facts of a Chrome trace, in the run's final transaction, after ingest_chrome_tracks. Inputs:
-- trace_events and tracks of run $run_id. Parameters: $run_id.
-- 1. Ascend trace_view.json tasks have no category: they are the complete events of the process named
--    'Ascend Hardware'.
-- 2. task_id, core_type (Ascend's task type), function_id and core_id (FuncId and CoreId of the runtime
--    swimlane's event-hint "Task:r2t0, FuncId:0, CoreId:2") from extra_args, on the few events that have it.
UPDATE trace_events SET kind = 'kernel'
WHERE run_id = $run_id AND ph = 'X' AND cat IS NULL AND kind IS NULL
  AND pid IN (SELECT pid FROM tracks WHERE run_id = $run_id AND process_name = 'Ascend Hardware');
UPDATE trace_events SET
    task_id = TRY_CAST(extra_args ->> 'task_id' AS BIGINT),
    core_type = CASE WHEN kind IS NOT NULL THEN extra_args ->> 'task_type' END,
    function_id = TRY_CAST(regexp_extract(extra_args ->> 'hint', 'FuncId:\s*(\d+)', 1) AS BIGINT),
    core_id = TRY_CAST(regexp_extract(extra_args ->> 'hint', 'CoreId:\s*(\d+)', 1) AS INTEGER)
WHERE run_id = $run_id AND ph = 'X' AND extra_args IS NOT NULL;
