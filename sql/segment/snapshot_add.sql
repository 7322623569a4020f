-- Record a kept segmentation whose session tables were just copied (snapshot_keep.sql).
-- Inputs: tracedb_cache.segmentations (snapshot_schema.sql).
-- Parameters:
--   $snap_id INTEGER: its id
--   $keys VARCHAR[]: its keys
--   $run_ids INTEGER[]: its runs, in bound order
--   $tables VARCHAR[]: the session tables kept
--   $state VARCHAR: JSON: the bound options and notes
--   $version VARCHAR: this tracedb's version
-- Output: one row in tracedb_cache.segmentations.
INSERT INTO tracedb_cache.segmentations
VALUES ($snap_id, $keys::VARCHAR[], $run_ids::INTEGER[], $tables::VARCHAR[], $state, now()::TIMESTAMP, $version);
