-- The layers each run's selected passes have (reports over a segmentation's layers refuse a layer they lack).
-- Inputs: _assigned (segment_assign.sql).
-- Parameters: none.
-- Output: rows, one per run with layers:
--   run_id INTEGER: the run
--   layers BIGINT[]: its layers, in order
SELECT run_id, list(DISTINCT layer ORDER BY layer) AS layers FROM _assigned WHERE layer IS NOT NULL
GROUP BY run_id;
