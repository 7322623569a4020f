-- Export `perfetto`: the process_name and thread_name metadata events of the processes and threads the
-- exported device activities and host events use: the run's own names (tracks), else the names the
-- export gave them (a CSV run's "NPU 0", "Stream 2", HCCL, "Group 0 Communication").
-- Inputs: the table macro _pf_device (perfetto_device.sql), host_events, tracks.
-- Parameters:
--   $run_id INTEGER: the run
--   $base_ns BIGINT: subtracted from start_ns (the run's time_base_ns, 0 for CSV runs)
--   $hccl_pid BIGINT: the pid of the HCCL process made for a CSV run's collectives
-- Output: rows, one per named process and thread, processes first:
--   event VARCHAR: the metadata event, JSON text
WITH used AS (
    SELECT DISTINCT pid, tid, process_name, thread_name FROM _pf_device($run_id, $base_ns, $hccl_pid)
    UNION
    SELECT DISTINCT pid, tid, NULL, NULL FROM host_events WHERE run_id = $run_id
), named AS (
    SELECT u.pid, NULL::VARCHAR AS tid,
        coalesce(max(u.process_name), (SELECT max(t.process_name) FROM tracks t
                                       WHERE t.run_id = $run_id AND t.pid = u.pid)) AS label, 0 AS level
    FROM used u GROUP BY u.pid
    UNION ALL
    SELECT u.pid, u.tid,
        coalesce(max(u.thread_name), (SELECT max(t.thread_name) FROM tracks t
                                      WHERE t.run_id = $run_id AND t.pid = u.pid AND t.tid = u.tid)), 1
    FROM used u GROUP BY u.pid, u.tid
)
SELECT json_object(
        'ph', 'M', 'name', CASE WHEN level = 0 THEN 'process_name' ELSE 'thread_name' END,
        'pid', CASE WHEN regexp_full_match(pid, '-?[0-9]{1,15}') THEN pid::BIGINT::JSON ELSE to_json(pid) END,
        'tid', CASE WHEN tid IS NULL THEN 0::JSON
                    WHEN regexp_full_match(tid, '-?[0-9]{1,15}') THEN tid::BIGINT::JSON ELSE to_json(tid) END,
        'args', json_object('name', label))::VARCHAR AS event
FROM named WHERE label IS NOT NULL
ORDER BY level, pid, tid;
