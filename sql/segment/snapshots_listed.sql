-- The kept segmentations the index lists.
-- Inputs: tracedb_cache.segmentations (snapshot_schema.sql).
-- Parameters: none.
-- Output: rows, one per kept segmentation:
--   snap_id INTEGER: its id
SELECT snap_id FROM tracedb_cache.segmentations;
