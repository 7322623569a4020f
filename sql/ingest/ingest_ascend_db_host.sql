-- The framework side of a torch_npu SQLite export as host events of the run (trace_events, ph 'X'): every
-- PYTORCH_API row, named through STRING_IDS, with its category as Ascend's trace_view.json writes it
-- (type 50001 op: cpu_op; 50003 python trace: python_function, nn.Module frames included when recorded
-- with modules; 50002 task queue: enqueue or dequeue, from the name's part before '@'; 50004 mstx:
-- mstx), its process and thread from globalTid (high 32 bits the pid, low 32 bits the tid, as the
-- table reference says), and for ops their PYTORCH_API.connectionId as external_id: the rows they
-- launched carry it too (ingest_ascend_db_insert). seq numbers the events in start order. msprof's file
-- has no PYTORCH_API: no rows.
-- Inputs: TEMP _adb_fwk, _adb_strings.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: trace_events rows of the run (host events; the host_events view shows them).
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, external_id)
SELECT $run_id, row_number() OVER (ORDER BY f.startNs, f.globalTid, f.endNs DESC), 'X', NULL,
       CASE f.type WHEN 50001 THEN 'cpu_op' WHEN 50003 THEN 'python_function'
                   WHEN 50002 THEN lower(split_part(s.value, '@', 1)) WHEN 50004 THEN 'mstx' END,
       s.value, (f.globalTid >> 32)::VARCHAR, (f.globalTid & 4294967295)::VARCHAR, f.startNs,
       f.endNs - f.startNs, CASE WHEN f.type = 50001 THEN f.connectionId END
FROM _adb_fwk f LEFT JOIN _adb_strings s ON s.id = f.name
ORDER BY f.startNs, f.globalTid, f.endNs DESC;
