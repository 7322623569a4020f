-- Drop one kept session table (its segmentation is forgotten, or no kept segmentation lists it).
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `target`, the table in tracedb_cache.
-- Inputs: none.
-- Parameters: none.
-- Output: the table dropped.
DROP TABLE IF EXISTS {target};
