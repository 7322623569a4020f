-- The processes (global pids) of the device activity copied from an Nsight Systems export: only their host side
-- is read (all of it when some row has no globalPid).
-- Inputs: TEMP _nsys_activity.
-- Parameters: none.
-- Output: rows, one per distinct global_pid (BIGINT, NULL among them when a row has none).
SELECT DISTINCT global_pid FROM _nsys_activity;
