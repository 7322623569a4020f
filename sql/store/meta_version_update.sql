-- The schema version of a store just migrated (`tracedb migrate`).
-- Inputs: tracedb_meta.
-- Parameters:
--   $version VARCHAR: the schema version, as text
-- Output: tracedb_meta row 'schema_version' updated.
UPDATE tracedb_meta SET value = $version WHERE key = 'schema_version';
