-- Report compare --layer L: the runs whose selected passes have layer L.
-- Inputs: _assigned (segment_assign.sql).
-- Parameters:
--   $layer BIGINT: the layer
-- Output: rows, one per run with that layer: its run_id.
SELECT DISTINCT run_id FROM _assigned WHERE layer = $layer;
