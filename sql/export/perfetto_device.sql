-- Export `perfetto`: every counted device activity of one run (the rows of the kernels view: kernels,
-- memcpy, memset, communication ops, per-core tasks) as one Chrome trace event each, written so that
-- `tracedb ingest` takes each back as the same kind with the same start and duration:
--   kernel: cat kernel; memcpy, memset: cat gpu_memcpy, gpu_memset (Kineto's categories);
--   comm named hcom_*: no cat, on a thread named "Group N Communication" of a process named HCCL, as
--     Ascend's trace_view.json writes collectives (ingest_chrome_tasks.sql); other comm: cat kernel;
--   task: no cat, on a thread named like a core (AIC_3), as per-core traces write them.
-- A JSON run's activities keep their pid and tid; a CSV run's get the device as pid and the stream as
-- tid (a named process "NPU 0" and threads "Stream 2"), its collectives the HCCL process.
-- ts and dur are exact decimal µs from integer ns; pid and tid are numbers when they are integers.
-- A table macro, so that perfetto_tracks.sql and perfetto_device_events.sql share one placement and a run of
-- 2M kernels is never held as JSON text: the events are read in slices of seq.
-- Inputs: kernels, trace_events, runs.
-- Parameters: none.
-- Output: TEMP table macro _pf_device(p_run, p_base_ns, p_hccl_pid): the run, what is subtracted from start_ns
--   (its time_base_ns, 0 for CSV runs) and the pid of the HCCL process made for a CSV run's collectives;
--   one row per counted device activity: seq, start_ns, pid and tid (text), process_name and thread_name
--   (of a process or thread the export makes; NULL: the run's own), event (JSON text).
CREATE OR REPLACE TEMP MACRO _pf_device(p_run, p_base_ns, p_hccl_pid) AS TABLE
WITH k AS (
    SELECT k.*, te.pid AS te_pid, te.tid AS te_tid, r.device_kind,
        k.kind = 'comm' AND starts_with(coalesce(k.name, ''), 'hcom_') AS hccl
    FROM kernels k JOIN runs r USING (run_id)
    -- the kernel's own trace event (a kernel_details.csv row's seq is of another table: no device event has it)
    LEFT JOIN trace_events te ON te.run_id = k.run_id AND te.seq = k.seq AND te.kind IS NOT NULL AND te.kind <> 'npu_task'
    WHERE k.run_id = p_run
), placed AS (
    SELECT *,
        CASE WHEN te_pid IS NOT NULL THEN te_pid
             WHEN hccl THEN p_hccl_pid::VARCHAR
             ELSE coalesce(device_id, 0)::VARCHAR END AS pid,
        CASE WHEN te_pid IS NOT NULL THEN te_tid
             WHEN kind = 'task' THEN (100000 + coalesce(core_id, 0))::VARCHAR
             ELSE coalesce(stream_id, 0)::VARCHAR END AS tid,
        CASE WHEN te_pid IS NOT NULL THEN NULL
             WHEN hccl THEN 'HCCL'
             ELSE upper(coalesce(device_kind, 'npu')) || ' ' || coalesce(device_id, 0) END AS process_name,
        CASE WHEN te_pid IS NOT NULL THEN NULL
             WHEN hccl THEN 'Group ' || coalesce(stream_id, 0) || ' Communication'
             WHEN kind = 'task' THEN coalesce(core_type, 'AIC') || '_' || coalesce(core_id, 0)
             ELSE 'Stream ' || coalesce(stream_id, 0) END AS thread_name,
        CASE WHEN kind = 'memcpy' THEN 'gpu_memcpy' WHEN kind = 'memset' THEN 'gpu_memset'
             WHEN kind = 'task' OR hccl THEN NULL ELSE 'kernel' END AS cat
    FROM k
)
SELECT seq, start_ns, pid, tid, process_name, thread_name,
    -- written as text: a JSON function would turn the exact decimals into doubles
    '{"ph":"X",' || CASE WHEN cat IS NOT NULL THEN '"cat":' || to_json(cat) || ',' ELSE '' END
    || '"name":' || coalesce(to_json(name)::VARCHAR, 'null')
    || ',"pid":' || CASE WHEN regexp_full_match(pid, '-?[0-9]{1,15}') THEN pid::BIGINT::VARCHAR ELSE coalesce(to_json(pid)::VARCHAR, '0') END
    || ',"tid":' || CASE WHEN regexp_full_match(tid, '-?[0-9]{1,15}') THEN tid::BIGINT::VARCHAR ELSE coalesce(to_json(tid)::VARCHAR, '0') END
    || ',"ts":' || ((start_ns - p_base_ns) * 0.001)::VARCHAR || ',"dur":' || (dur_ns * 0.001)::VARCHAR
    || ',"args":' || json_merge_patch('{}', json_object(
            'device', device_id, 'stream', stream_id, 'correlation', correlation_id, 'External id', external_id,
            'grid', grid, 'block', block, 'registers per thread', registers_per_thread,
            'shared memory', shared_mem_bytes, 'Type', op_type, 'Accelerator Core', core_type,
            'Block Dim', block_dim, 'Input Shapes', input_shapes, 'Input Data Types', input_dtypes,
            'Output Shapes', output_shapes, 'Output Data Types', output_dtypes))::VARCHAR || '}' AS event
FROM placed;
