-- A job's graph: the nodes of every run's window.
-- Inputs: _cp_members (critical_path_windows.sql).
-- Parameters: none.
-- Output: rows, one per node of a window:
--   id BIGINT: the node
SELECT id FROM _cp_members;
