-- The device rows of one run of an Ascend SQLite export, as kernel_details.csv holds them, in start
-- order (ties: compute tasks by globalTaskId, then communication ops by opId):
--   compute tasks, TASK joined with COMPUTE_TASK_INFO on globalTaskId: start TASK.startNs, duration
--     endNs - startNs; name, op type (Type) and core type (Accelerator Core: COMPUTE_TASK_INFO.taskType,
--     AI_CORE, AI_VECTOR_CORE, MIX_AIC, ...) and the shapes, dtypes and formats through STRING_IDS; stream,
--     task, model and context ids from TASK (model and context 4294967295, msprof's invalid, as NULL);
--   communication ops, one per COMMUNICATION_OP (kernel_details' hcom_* rows): name opName, Type opType,
--     core type HCCL, no task id, Block Dim 0 as kernel_details writes it; the device of the op's tasks
--     (COMMUNICATION_TASK_INFO), else the file's one device; the stream of its tasks (their lowest when
--     they run on several), where kernel_details.csv has none and its folder's trace_view.json gives the
--     same (ingest_ascend_host_link.sql), so that report critical-path finds the op on that stream.
-- correlation_id: the row's connectionId (TASK's, COMMUNICATION_OP's), the id the launch's flow carries
--   (ingest_ascend_db_host.sql writes it as trace_view.json does).
-- external_id: the framework op that launched the row (a PYTORCH_API op, type 50001, whose CONNECTION_IDS
-- hold the task's or the communication op's connectionId), its PYTORCH_API.connectionId: the op's host
-- event carries the same external_id (ingest_ascend_db_host), as Kineto's External id links a cpu_op to
-- its kernels. NULL when the file has no framework side (msprof).
-- kind is 'comm' by the rule of the CSV reader (tracedb.ingest.ascend_csv_arrow: core type HCCL or
-- COMMUNICATION, or a name starting with hcom_), else 'kernel'. Text 'N/A' or '' is NULL, as the CSV reader reads it.
-- Step Id, torch_npu's rule for kernel_details: STEP_TIME holds each ProfilerStep's host range; a step's
-- device range starts at the earliest task launched (CANN_API type 10000, node) within the host range and
-- ends at the later of the host range's end and the latest such task's end (the host range when it
-- launched nothing); a row takes the first step in start order whose device range holds its start (ends
-- included), NULL outside every step.
-- Wait Time: waitNs where the file has it (msprof), else torch_npu's rule for kernel_details: the row's
-- start minus the end of the row before it on the device, never below 0, and 0 for the first.
-- metrics: a compute task's PMU metrics (TASK_PMU_INFO) in the order of $metrics, NULL in the list where
-- the task has no value for a metric, or more than one (a globalTaskId that several launches share: which
-- value is whose is not known, so none is picked); NULL for communication ops and for tasks without PMU rows.
-- Inputs: TEMP _adb_strings, _adb_task, _adb_compute, _adb_comm, _adb_comm_tasks, _adb_steps, _adb_api,
--   _adb_fwk, _adb_links (checked by ingest_ascend_db_check), _adb_pmu.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $device BIGINT: the device of the run (TASK.deviceId), NULL for every device
--   $metrics VARCHAR[]: the run's metric columns (ingest_ascend_db_metrics)
-- Output: TEMP _adb_launched_by, per connectionId a framework op launched (CONNECTION_IDS: a task's or a
--   collective's) that op's PYTORCH_API.connectionId as op_id (type 50001; the lowest should several name it),
--   read here and by ingest_ascend_db_host (the op its flow starts at)
-- Output: TEMP _rows_with_texts, the run's kernels_raw columns (metrics DOUBLE[] among them) and its text
--   columns (op_state, input_shapes, input_dtypes, input_formats, output_shapes, output_dtypes,
--   output_formats, extra_text), in row order, for ingest_split_texts.sql (seq 0 and dup NULL until
--   ingest_finish).
CREATE OR REPLACE TEMP TABLE _adb_launched_by AS
SELECT l.connectionId, min(f.connectionId) AS op_id
FROM _adb_links l JOIN _adb_fwk f ON f.connectionId = l.id AND f.type = 50001
GROUP BY l.connectionId;

CREATE OR REPLACE TEMP TABLE _rows_with_texts AS
WITH str AS (
    SELECT id, nullif(nullif(value, 'N/A'), '') AS value FROM _adb_strings
), only_device AS (    -- the file's device when it has one: a collective without tasks runs there
    SELECT CASE WHEN count(DISTINCT deviceId) = 1 THEN min(deviceId) END AS device FROM _adb_task
), op_device AS (
    SELECT ct.opId, min(t.deviceId) AS device, min(t.streamId) AS stream
    FROM _adb_comm_tasks ct JOIN _adb_task t USING (globalTaskId)
    GROUP BY ct.opId
), metric_position AS (    -- STRING_IDS id of a metric's name -> its place in $metrics (1-based)
    SELECT s.id AS name_id, list_position($metrics::VARCHAR[], s.value) AS i
    FROM _adb_strings s
    WHERE list_contains($metrics::VARCHAR[], s.value)
), pmu_lists AS (
    SELECT p.globalTaskId, list(m.i ORDER BY m.i) AS places, list(p.value ORDER BY m.i) AS vals
    FROM _adb_pmu p JOIN metric_position m ON m.name_id = p.name
    GROUP BY p.globalTaskId
), pmu AS (             -- a task with each metric once (the usual case) takes its list as it is
    SELECT globalTaskId,
           CASE WHEN len(places) = len($metrics::VARCHAR[]) AND len(list_distinct(places)) = len(places) THEN vals
                ELSE list_transform(range(1, len($metrics::VARCHAR[]) + 1), lambda x:
                         CASE WHEN len(list_filter(places, lambda q: q = x)) = 1 THEN vals[list_position(places, x)] END)
           END AS metrics
    FROM pmu_lists
), compute AS (
    SELECT t.startNs AS start_ns, t.endNs - t.startNs AS dur_ns, 0 AS part, c.globalTaskId AS key,
           c.name AS name_id, c.opType AS op_type_id, c.taskType AS core_type_id, t.deviceId AS device_id,
           t.streamId AS stream_id, t.taskId AS task_id, nullif(t.modelId, 4294967295) AS model_id,
           nullif(t.contextId, 4294967295) AS context_id, c.blockDim AS block_dim, c.mixBlockDim AS mix_block_dim,
           c.waitNs AS wait_src, c.inputShapes, c.inputDataTypes, c.inputFormats, c.outputShapes,
           c.outputDataTypes, c.outputFormats, lb.op_id AS external_id, t.connectionId AS correlation_id
    FROM _adb_compute c JOIN _adb_task t USING (globalTaskId)
    LEFT JOIN _adb_launched_by lb ON lb.connectionId = t.connectionId
), comm AS (
    SELECT o.startNs AS start_ns, o.endNs - o.startNs AS dur_ns, 1 AS part, o.opId AS key, o.opName AS name_id,
           o.opType AS op_type_id, coalesce(d.device, od.device) AS device_id, d.stream AS stream_id, 0 AS block_dim,
           o.waitNs AS wait_src, lb.op_id AS external_id, o.connectionId AS correlation_id
    FROM _adb_comm o LEFT JOIN op_device d USING (opId) CROSS JOIN only_device od
    LEFT JOIN _adb_launched_by lb ON lb.connectionId = o.connectionId
), both_kinds AS (
    SELECT * FROM compute UNION ALL BY NAME SELECT * FROM comm
), picked AS (
    SELECT *, coalesce(wait_src, greatest(0, start_ns - coalesce(lag(start_ns + dur_ns) OVER w, start_ns))) AS wait_ns
    FROM both_kinds
    WHERE $device IS NULL OR device_id = $device
    WINDOW w AS (PARTITION BY device_id ORDER BY start_ns, part, key)
), device_steps AS (
    SELECT st.id, st.startNs AS host_start, coalesce(min(t.startNs), st.startNs) AS s,
           greatest(coalesce(max(t.endNs), st.endNs), st.endNs) AS e
    FROM _adb_steps st
    LEFT JOIN _adb_api a ON a.type = 10000 AND a.startNs >= st.startNs AND a.endNs <= st.endNs
    LEFT JOIN _adb_task t ON t.connectionId = a.connectionId
    GROUP BY st.id, st.startNs, st.endNs
), numbered AS (
    SELECT *, row_number() OVER () AS rid FROM picked
), stepped AS (
    SELECT p.* EXCLUDE (rid), ds.id AS step_id
    FROM numbered p LEFT JOIN device_steps ds ON p.start_ns BETWEEN ds.s AND ds.e
    QUALIFY row_number() OVER (PARTITION BY p.rid ORDER BY ds.host_start, ds.id) = 1
)
SELECT $run_id AS run_id, 0 AS seq, p.start_ns, p.dur_ns, n.value AS name, ot.value AS op_type,
       CASE WHEN p.part = 1 OR ct.value IN ('HCCL', 'COMMUNICATION') OR starts_with(n.value, 'hcom_')
            THEN 'comm' ELSE 'kernel' END AS kind,
       CASE WHEN p.part = 1 THEN 'HCCL' ELSE ct.value END AS core_type,
       p.device_id, p.stream_id, p.task_id, p.step_id, p.model_id, p.context_id, p.block_dim, p.mix_block_dim,
       p.wait_ns, NULL::VARCHAR AS op_state, ish.value AS input_shapes, idt.value AS input_dtypes,
       ifm.value AS input_formats, osh.value AS output_shapes, odt.value AS output_dtypes,
       ofm.value AS output_formats, NULL::VARCHAR AS extra_text, p.external_id, p.correlation_id, pm.metrics
FROM stepped p
LEFT JOIN pmu pm ON p.part = 0 AND pm.globalTaskId = p.key
LEFT JOIN str n ON n.id = p.name_id
LEFT JOIN str ot ON ot.id = p.op_type_id
LEFT JOIN str ct ON ct.id = p.core_type_id
LEFT JOIN str ish ON ish.id = p.inputShapes
LEFT JOIN str idt ON idt.id = p.inputDataTypes
LEFT JOIN str ifm ON ifm.id = p.inputFormats
LEFT JOIN str osh ON osh.id = p.outputShapes
LEFT JOIN str odt ON odt.id = p.outputDataTypes
LEFT JOIN str ofm ON ofm.id = p.outputFormats
ORDER BY p.start_ns, p.part, p.key;
