-- The host side of a torch_npu or msprof SQLite export, and the links from it to the device, as Ascend's
-- trace_view.json holds them (trace_events rows of the run), so that one capture gives the same host events,
-- launches and waits from either export:
--   * every PYTORCH_API row (the framework: msprof's file has none), ph 'X', named through STRING_IDS, with
--     its category as trace_view.json writes it (type 50001 op: cpu_op; 50003 python trace: python_function,
--     nn.Module frames included when recorded with modules; 50002 task queue: enqueue or dequeue, from the
--     name's part before '@'; 50004 mstx: mstx), and for ops their PYTORCH_API.connectionId as external_id:
--     the rows they launched carry it too (ingest_ascend_db_insert);
--   * every CANN_API row (CANN's API calls), ph 'X', no category, named LEVEL@NAME as trace_view.json names
--     them (AscendCL@aclrtSynchronizeStream, Node@launch, Runtime@KernelLaunch: the level's ENUM_API_TYPE
--     name, acl as AscendCL, the others capitalised), its connectionId as correlation_id;
--   * the runtime tasks EVENT_RECORD and EVENT_WAIT of the run's device (TASK rows of those types), kind
--     npu_task (no kernel view reads it), on their stream (stream_id, and tid as trace_view.json has it), the
--     task's connectionId as correlation_id: a stream's wait on another is found by them
--     (critical_path_nodes.sql);
--   * one flow start (ph 's', cat async_npu) per launched device row and event task, correlation_id its
--     connectionId, at the start of what launched it: the framework op whose CONNECTION_IDS hold the
--     connectionId (as trace_view.json's flows start at the op), else the CANN call of that connectionId
--     of the highest level (an aclrtRecordEvent, msprof's Node@launch), on that call's thread. The device
--     rows carry the connectionId as their correlation_id, so view kernel_launches finds each launch.
-- Process and thread from globalTid (high 32 bits the pid, low 32 bits the tid, as the table reference
-- says); an event task's process is its device. seq numbers the rows in start order.
-- Inputs: TEMP _adb_fwk, _adb_api, _adb_api_types, _adb_task, _adb_launched_by, _adb_strings; the run's kernels_raw
--   rows (ingest_ascend_db_insert, ingest_split_texts).
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $device BIGINT: the device of the run (TASK.deviceId), NULL for every device
-- Output: trace_events rows of the run (host events, the event tasks and the flows).
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id, external_id,
                          stream_id)
WITH fwk AS (
    SELECT 'X' AS ph, NULL AS kind,
           CASE f.type WHEN 50001 THEN 'cpu_op' WHEN 50003 THEN 'python_function'
                       WHEN 50002 THEN lower(split_part(s.value, '@', 1)) WHEN 50004 THEN 'mstx' END AS cat,
           s.value AS name, (f.globalTid >> 32)::VARCHAR AS pid, (f.globalTid & 4294967295)::VARCHAR AS tid,
           f.startNs AS start_ns, f.endNs - f.startNs AS dur_ns, NULL::BIGINT AS correlation_id,
           CASE WHEN f.type = 50001 THEN f.connectionId END AS external_id, NULL::BIGINT AS stream_id,
           0 AS part, f.globalTid AS gtid, f.endNs AS end_ns
    FROM _adb_fwk f LEFT JOIN _adb_strings s ON s.id = f.name
), levels AS (
    SELECT id, CASE name WHEN 'acl' THEN 'AscendCL' ELSE upper(name[1]) || name[2:] END AS word
    FROM _adb_api_types
), cann AS (
    SELECT 'X' AS ph, NULL AS kind, NULL AS cat, coalesce(l.word, a.type::VARCHAR) || '@' || s.value AS name,
           (a.globalTid >> 32)::VARCHAR AS pid, (a.globalTid & 4294967295)::VARCHAR AS tid, a.startNs AS start_ns,
           a.endNs - a.startNs AS dur_ns, a.connectionId AS correlation_id, NULL::BIGINT AS external_id,
           NULL::BIGINT AS stream_id, 1 AS part, a.globalTid AS gtid, a.endNs AS end_ns
    FROM _adb_api a LEFT JOIN levels l ON l.id = a.type LEFT JOIN _adb_strings s ON s.id = a.name
), events AS (
    SELECT 'X' AS ph, 'npu_task' AS kind, NULL AS cat, s.value AS name, t.deviceId::VARCHAR AS pid,
           t.streamId::VARCHAR AS tid, t.startNs AS start_ns, t.endNs - t.startNs AS dur_ns,
           t.connectionId AS correlation_id, NULL::BIGINT AS external_id, t.streamId AS stream_id, 2 AS part,
           NULL::BIGINT AS gtid, t.endNs AS end_ns
    FROM _adb_task t JOIN _adb_strings s ON s.id = t.taskType
    WHERE s.value IN ('EVENT_RECORD', 'EVENT_WAIT') AND ($device IS NULL OR t.deviceId = $device)
), launched AS (    -- the connectionIds of the run's device rows and event tasks
    SELECT DISTINCT correlation_id AS id FROM kernels_raw_full WHERE run_id = $run_id AND correlation_id IS NOT NULL
    UNION
    SELECT correlation_id FROM events WHERE correlation_id IS NOT NULL
), by_op AS (       -- the framework op that launched it, as the row's external_id names it
    SELECT lb.connectionId AS id, min(f.startNs) AS start_ns, arg_min(f.globalTid, f.startNs) AS gtid
    FROM _adb_launched_by lb JOIN _adb_fwk f ON f.connectionId = lb.op_id AND f.type = 50001
    WHERE lb.connectionId IN (SELECT id FROM launched)
    GROUP BY lb.connectionId
), by_call AS (     -- else the CANN call of the highest level carrying it
    SELECT connectionId AS id, arg_max(startNs, (type, -startNs)) AS start_ns,
           arg_max(globalTid, (type, -startNs)) AS gtid
    FROM _adb_api
    WHERE connectionId IN (SELECT id FROM launched) AND globalTid IS NOT NULL
    GROUP BY connectionId
), flows AS (
    SELECT 's' AS ph, NULL AS kind, 'async_npu' AS cat, NULL AS name, (coalesce(o.gtid, c.gtid) >> 32)::VARCHAR AS pid,
           (coalesce(o.gtid, c.gtid) & 4294967295)::VARCHAR AS tid, coalesce(o.start_ns, c.start_ns) AS start_ns,
           NULL::BIGINT AS dur_ns, l.id AS correlation_id, NULL::BIGINT AS external_id, NULL::BIGINT AS stream_id,
           3 AS part, coalesce(o.gtid, c.gtid) AS gtid, NULL::BIGINT AS end_ns
    FROM launched l LEFT JOIN by_op o ON o.id = l.id LEFT JOIN by_call c ON c.id = l.id
    WHERE coalesce(o.start_ns, c.start_ns) IS NOT NULL
), host AS (
    SELECT * FROM fwk UNION ALL SELECT * FROM cann UNION ALL SELECT * FROM events UNION ALL SELECT * FROM flows
)
SELECT $run_id, row_number() OVER (ORDER BY start_ns, part, gtid, end_ns DESC, correlation_id, stream_id), ph, kind,
       cat, name, pid, tid, start_ns, dur_ns, correlation_id, external_id, stream_id
FROM host
ORDER BY start_ns, part, gtid, end_ns DESC, correlation_id, stream_id;
