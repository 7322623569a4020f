-- Report `critical-path`: what each run's trace records to tie its device to its host (the notes on runs
-- without host calls, or with device work no launch call in the trace accounts for).
-- Inputs: _cp_nodes (critical_path_nodes.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run with nodes:
--   run_id INTEGER: the run
--   host BIGINT: its host nodes (launch and synchronising calls)
--   device BIGINT: its device nodes
--   unlaunched BIGINT: device nodes without a launch call in the trace
SELECT run_id, count(*) FILTER (WHERE side = 'host') AS host, count(*) FILTER (WHERE side = 'device') AS device,
    count(*) FILTER (WHERE side = 'device' AND launch IS NULL) AS unlaunched
FROM _cp_nodes
WHERE run_id IN (SELECT unnest($run_ids))
GROUP BY run_id
ORDER BY run_id;
