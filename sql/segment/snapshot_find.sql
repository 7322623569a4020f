-- The kept segmentation of a key (snapshot_schema.sql: one of its keys), the latest when there are several.
-- Inputs: tracedb_cache.segmentations.
-- Parameters:
--   $key VARCHAR: the key (tracedb.engine.segmentation.snapshots.keys)
-- Output: at most one row:
--   snap_id INTEGER: the kept segmentation
--   tables VARCHAR[]: its session tables
--   state VARCHAR: JSON: its bound options and notes
--   made_at TIMESTAMP: when it was kept
SELECT snap_id, tables, state, made_at FROM tracedb_cache.segmentations WHERE list_contains(keys, $key)
ORDER BY snap_id DESC LIMIT 1;
