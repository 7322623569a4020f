-- How many anchor kernels segment_anchors.sql found per run.
-- Inputs: _anchors (segment_anchors.sql).
-- Parameters: none.
-- Output: rows, one per run with an anchor:
--   run_id INTEGER: the run
--   anchors BIGINT: its anchor kernels
SELECT run_id, count(*) AS anchors FROM _anchors GROUP BY run_id;
