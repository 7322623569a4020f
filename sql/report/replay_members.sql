-- The nodes of one run's window.
-- Inputs: _cp_members (critical_path_windows.sql).
-- Parameters:
--   $run_id INTEGER: the run
-- Output: rows, one per node of its window:
--   id BIGINT: the node
SELECT id FROM _cp_members WHERE run_id = $run_id;
