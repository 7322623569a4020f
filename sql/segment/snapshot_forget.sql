-- Forget kept segmentations: their rows go (their tables are dropped by snapshot_drop.sql).
-- Inputs: tracedb_cache.segmentations.
-- Parameters:
--   $snap_ids INTEGER[]: the kept segmentations to forget
-- Output: their rows deleted from tracedb_cache.segmentations.
DELETE FROM tracedb_cache.segmentations WHERE snap_id IN (SELECT unnest($snap_ids::INTEGER[]));
