-- The device ids of an Ascend export (ascend_pytorch_profiler_N.db, msprof_N.db) that ran a compute task or a
-- collective's task (msprof lists every NPU of the node in NPU_INFO; one process usually drives one). Run on the
-- file's own sqlite3 connection.
-- Inputs: the SQLite file's TASK, COMPUTE_TASK_INFO.
-- Parameters: none.
-- Output: rows, one per device id, in order: the deviceId (integer).
SELECT DISTINCT deviceId FROM TASK WHERE globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO)
AND deviceId IS NOT NULL ORDER BY 1;
