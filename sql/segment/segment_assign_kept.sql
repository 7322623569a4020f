-- Stage 4 from a kept segmentation: the layer assignment of the selected passes, taken from the one of
-- every pass that was kept (segment_assign.sql assigns each pass on its own: its windows, anchors and
-- blocks, its epilogue; so the rows of a pass are the same whichever passes are selected with it).
-- Inputs: _assigned_all (segment_assign.sql's _assigned of every pass, restored by
--   tracedb.engine.segmentation.snapshots), TEMP _sel(run_id INTEGER, pass BIGINT) (the passes to assign).
-- Parameters: none.
-- Output: TEMP _assigned, as segment_assign.sql makes it for the passes of _sel.
CREATE OR REPLACE TEMP TABLE _assigned AS
SELECT * FROM _assigned_all WHERE (run_id, pass) IN (SELECT run_id, pass FROM _sel);
