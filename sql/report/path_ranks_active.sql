-- Report critical-path --job: the runs with device work (an analyses-only Ascend rank has no clock to align).
-- Inputs: _cp_nodes (critical_path_nodes.sql).
-- Parameters: none.
-- Output: rows, one per run with a device node:
--   run_id INTEGER: the run
SELECT DISTINCT run_id FROM _cp_nodes WHERE side = 'device';
