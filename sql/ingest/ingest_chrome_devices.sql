-- Complete events without a category on a process named like a device ('GPU 0', 'Simulated NPU 0',
-- 'Device 1'): device activities written by tools other than Kineto (performance models, simulators),
-- which leave `cat` out. Runs after ingest_chrome_cores (core threads are tasks, not kernels), once
-- every part is in, since metadata events may come last in a file.
-- Inputs: tracks, trace_events of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
-- Output: those events become kind 'kernel' (the kernels view takes device and stream from pid and tid).
--   TEMP _devices is scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _devices AS
SELECT DISTINCT run_id, pid FROM tracks
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND regexp_matches(coalesce(process_name, ''), '(?i)\b(gpu|npu|device)\b');
UPDATE trace_events SET kind = 'kernel'
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND ph = 'X' AND kind IS NULL AND cat IS NULL
  AND (run_id, pid) IN (SELECT run_id, pid FROM _devices);
DROP TABLE _devices;
