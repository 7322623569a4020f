-- Report critical-path --by slack: each window's device activities and their slack, registered from Python
-- (Arrow, replay.Graph) as _cp_slack_rows, kept as a table.
-- Inputs: _cp_slack_rows (registered by engine/reports/critical_path.py).
-- Parameters: none.
-- Output: TEMP _cp_slack, one row per device activity of a window:
--   run_id INTEGER: the run
--   node BIGINT: the node (_cp_nodes.id)
--   slack_ns BIGINT: how much later it could end before the window's end moves; NULL: nothing waits for it
CREATE OR REPLACE TEMP TABLE _cp_slack AS SELECT * FROM _cp_slack_rows;
