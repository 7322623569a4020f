-- A value of the store's tracedb_meta: 'schema_version' (read on every open, before the version says which
-- tables to expect), or 'pending_run' (an ingest in committed parts that has not finished).
-- Inputs: tracedb_meta.
-- Parameters:
--   $key VARCHAR: the key
-- Output: rows, none or one:
--   value VARCHAR: the key's value, as text
SELECT value FROM tracedb_meta WHERE key = $key;
