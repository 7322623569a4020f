-- The runs with communication ops only (no kernel rows), for their notes.
-- Inputs: _bd_comm_only (breakdown_activity.sql or breakdown_activity_layers.sql).
-- Parameters: none.
-- Output: rows, one per such run, in run order:
--   run_id INTEGER: the run
--   ops BIGINT: its communication ops
SELECT run_id, ops FROM _bd_comm_only ORDER BY run_id;
