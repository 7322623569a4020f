-- The kept segmentation of a key (snapshot_schema.sql: one of its keys), the latest when there are several.
-- Read only once the schema listing (snapshot_catalog.sql) shows tracedb_cache.segmentations to be a table
-- of the index's own columns and types.
-- Inputs: tracedb_cache.segmentations.
-- Parameters:
--   $key VARCHAR: the key (tracedb.engine.segmentation.snapshots.keys)
-- Output: at most one row:
--   snap_id INTEGER: the kept segmentation
--   tables VARCHAR[]: its session tables
--   state VARCHAR: JSON: its bound options and notes
--   made_at TIMESTAMP: when it was kept
--   run_ids INTEGER[]: its runs, in bound order
--   digests VARCHAR: JSON: the digest of each run's rows when it was kept
SELECT snap_id, tables, state, made_at, run_ids, digests FROM tracedb_cache.segmentations
WHERE list_contains(keys, $key)
ORDER BY snap_id DESC LIMIT 1;
