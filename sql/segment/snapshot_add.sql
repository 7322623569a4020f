-- Record a kept segmentation whose session tables were just copied (snapshot_keep.sql).
-- Inputs: tracedb_cache.segmentations (snapshot_schema.sql).
-- Parameters:
--   $snap_id INTEGER: its id
--   $keys VARCHAR[]: its keys
--   $run_ids INTEGER[]: its runs, in bound order
--   $tables VARCHAR[]: the session tables kept
--   $state VARCHAR: JSON: the bound options and notes
--   $version VARCHAR: this tracedb's version
--   $digests VARCHAR: JSON: the digest of each run's rows (snapshot_digest.sql)
-- Output: one row in tracedb_cache.segmentations.
INSERT INTO tracedb_cache.segmentations (snap_id, keys, run_ids, tables, state, made_at, tracedb_version, digests)
VALUES ($snap_id, $keys::VARCHAR[], $run_ids::INTEGER[], $tables::VARCHAR[], $state, now()::TIMESTAMP, $version,
        $digests);
