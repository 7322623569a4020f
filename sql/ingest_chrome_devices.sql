-- Complete events without a category on a process named like a device ('GPU 0', 'Simulated NPU 0',
-- 'Device 1'): device activities written by tools other than Kineto (performance models, simulators),
-- which leave `cat` out. Runs after ingest_chrome_cores (core threads are tasks, not kernels), once
-- every batch is in, since metadata events may come last in a file. Inputs: tracks, host_events of run
-- $run_id. Parameters: $run_id.
-- Output: those events move from host_events to kernels_raw with kind 'kernel', device from the pid,
--   stream from the tid.
CREATE OR REPLACE TEMP TABLE _devices AS
SELECT DISTINCT pid FROM tracks
WHERE run_id = $run_id AND regexp_matches(coalesce(process_name, ''), '(?i)\b(gpu|npu|device)\b');
INSERT INTO kernels_raw BY NAME
SELECT h.run_id, h.seq, h.start_ns, h.dur_ns, h.name, 'kernel' AS kind,
    TRY_CAST(h.pid AS INTEGER) AS device_id, TRY_CAST(h.tid AS BIGINT) AS stream_id,
    h.correlation_id, h.external_id, h.task_id
FROM host_events h SEMI JOIN _devices d USING (pid)
WHERE h.run_id = $run_id AND h.cat IS NULL;
DELETE FROM host_events
WHERE run_id = $run_id AND cat IS NULL AND pid IN (SELECT pid FROM _devices);
DROP TABLE _devices;
