-- The schema version of a store just created (schema.sql and every migration).
-- Inputs: tracedb_meta.
-- Parameters:
--   $version VARCHAR: the schema version, as text
-- Output: tracedb_meta row 'schema_version' inserted.
INSERT INTO tracedb_meta VALUES ('schema_version', $version);
