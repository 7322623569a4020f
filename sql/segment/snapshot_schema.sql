-- The store's kept segmentations (tracedb segment): the session tables of a segmentation, kept so that a
-- report on the same runs with the same options restores them instead of computing them again
-- (tracedb.engine.segmentation.snapshots). They live in the schema tracedb_cache, apart from the store's own
-- tables: a dataset export and the schema listing read the schema main only.
-- Inputs: none.
-- Parameters: none.
-- Output: SCHEMA tracedb_cache and TABLE tracedb_cache.segmentations (when missing), one row per kept
--   segmentation; its session tables are tracedb_cache tables named s, its id, then the table's name:
--   snap_id INTEGER: the kept segmentation
--   keys VARCHAR[]: sha256 of the options, runs, profile, model config and segmentation code it was made
--     with; one key with the phase as given, one with the phase it resolves to
--   run_ids INTEGER[]: its runs, in the order they were bound
--   tables VARCHAR[]: the session tables kept (_passes, _windows, _assigned, ...)
--   state VARCHAR: JSON: the bound options and the notes the segmentation made
--   made_at TIMESTAMP: when it was kept
--   tracedb_version VARCHAR: the tracedb that kept it
--   digests VARCHAR: JSON: per run, the digest of its rows when it was kept (snapshot_digest.sql); a
--     report restores it only while its runs' rows give the same digests. An index kept before this column
--     existed gets it, empty (its segmentations are computed afresh)
CREATE SCHEMA IF NOT EXISTS tracedb_cache;
CREATE TABLE IF NOT EXISTS tracedb_cache.segmentations (
    snap_id INTEGER PRIMARY KEY,
    keys VARCHAR[] NOT NULL,
    run_ids INTEGER[] NOT NULL,
    tables VARCHAR[] NOT NULL,
    state VARCHAR NOT NULL,
    made_at TIMESTAMP NOT NULL,
    tracedb_version VARCHAR,
    digests VARCHAR
);
ALTER TABLE tracedb_cache.segmentations ADD COLUMN IF NOT EXISTS digests VARCHAR;
