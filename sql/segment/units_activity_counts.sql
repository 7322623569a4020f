-- Per run, its kernels and communication ops to divide into units.
-- Inputs: _bd_act (breakdown_activity.sql or breakdown_activity_layers.sql).
-- Parameters: none.
-- Output: rows, one per run of _bd_act:
--   run_id INTEGER: the run
--   activities BIGINT: its rows of _bd_act
SELECT run_id, count(*) AS activities FROM _bd_act GROUP BY run_id;
