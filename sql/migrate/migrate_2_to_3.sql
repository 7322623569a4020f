-- Schema v2 -> v3: many runs in one store. Adds runs.source_bytes; the views of v3 for cross-run SQL
-- (run_kernels, run_summary, kernel_stats) are in views.sql, as every view.
-- Inputs: a v2 store.
-- Parameters: none.
-- Output: TABLE runs, new columns:
--   source_bytes BIGINT: bytes of runs.source_files as read (a .gz counts compressed); NULL for runs
--     ingested before v3
ALTER TABLE runs ADD COLUMN source_bytes BIGINT;
-- v2 removed a replaced run's kernels but not its host events and tracks; a later run could reuse the id.
DELETE FROM host_events WHERE run_id NOT IN (SELECT run_id FROM runs);
DELETE FROM tracks WHERE run_id NOT IN (SELECT run_id FROM runs);
