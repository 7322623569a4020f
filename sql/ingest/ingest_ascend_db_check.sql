-- The first problem of an Ascend SQLite export copied by ingest_ascend_db_tables, as the words of a
-- one-line error: a compute task (TASK joined with COMPUTE_TASK_INFO) or a COMMUNICATION_OP row without a
-- start or end, starting before 1970 or ending before it starts, or named by an id that STRING_IDS does
-- not hold; a PYTORCH_API or CANN_API row without a start or end or ending before it starts; a text of STRING_IDS
-- with a NUL character (as the CSV reader refuses one); else a file (or
-- device) with neither compute tasks nor communication ops. No row: the rows are consistent. Rows are
-- looked at in start order, so the first problem is the earliest.
-- Inputs: TEMP _adb_strings, _adb_task, _adb_compute, _adb_comm, _adb_fwk, _adb_api.
-- Parameters:
--   $device BIGINT: the device of the run (TASK.deviceId), NULL for every device
-- Output: at most one row of one column (the tiny traces of tests/test_sql_headers.py are no SQLite
--   exports; tests/test_ascend_db.py reaches every problem) problem VARCHAR, what is wrong and what was
--   expected.
WITH rows AS (
    SELECT format('TASK globalTaskId {}', c.globalTaskId) AS what, t.startNs AS s, t.endNs AS e,
           c.name AS name_id, 'COMPUTE_TASK_INFO.name' AS name_col
    FROM _adb_compute c JOIN _adb_task t USING (globalTaskId)
    WHERE $device IS NULL OR t.deviceId = $device
    UNION ALL
    SELECT format('COMMUNICATION_OP opId {}', coalesce(opId::VARCHAR, '?')), startNs, endNs, opName,
           'COMMUNICATION_OP.opName'
    FROM _adb_comm
), problems AS (
    SELECT s, CASE
        WHEN s IS NULL OR e IS NULL THEN format('{} has no startNs or endNs; expected integer ns', what)
        WHEN s < 0 THEN format('{} starts at {} ns; expected ns since 1970, at least 0', what, s)
        WHEN e < s THEN format('{} ends before it starts (startNs {}, endNs {}); expected startNs <= endNs',
                               what, s, e)
        WHEN name_id IS NULL OR NOT EXISTS (SELECT 1 FROM _adb_strings x WHERE x.id = name_id)
            THEN format('{}: {} {} is not an id of STRING_IDS; expected every name in STRING_IDS', what,
                        name_col, coalesce(name_id::VARCHAR, 'NULL'))
        END AS problem
    FROM rows
    UNION ALL
    SELECT startNs, CASE
        WHEN startNs IS NULL OR endNs IS NULL
            THEN format('{}: a row without startNs or endNs; expected integer ns', tbl)
        WHEN endNs < startNs THEN format('{}: the row at startNs {} ends before it starts (endNs {}); '
                                         || 'expected startNs <= endNs', tbl, startNs, endNs)
        END
    FROM (SELECT 'PYTORCH_API' AS tbl, startNs, endNs FROM _adb_fwk
          UNION ALL SELECT 'CANN_API', startNs, endNs FROM _adb_api)
)
SELECT problem FROM (
    SELECT problem, 0 AS k, s FROM problems WHERE problem IS NOT NULL
    UNION ALL
    SELECT format('STRING_IDS id {} holds a NUL character; expected text without NUL', min(id)), 0, NULL
    FROM _adb_strings WHERE contains(value, chr(0))
    HAVING count(*) > 0
    UNION ALL
    SELECT CASE WHEN $device IS NULL
                THEN 'no compute tasks (TASK joined with COMPUTE_TASK_INFO on globalTaskId is empty) and no '
                     || 'COMMUNICATION_OP rows; expected a capture with NPU activity (torch_npu ProfilerActivity.NPU, '
                     || 'msprof --task-time=on)'
                ELSE format('device {} ran no compute task (TASK.deviceId); expected one of the devices of TASK',
                            $device) END, 1, NULL
    WHERE NOT EXISTS (SELECT 1 FROM rows)
)
ORDER BY k, s NULLS FIRST
LIMIT 1;
