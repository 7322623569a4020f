-- Bring one kept session table of a segmentation back into the session, under the name the stages use.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `target`, the session table; `source`, the
--   kept table in tracedb_cache.
-- Inputs: the kept table.
-- Parameters: none.
-- Output: TEMP target, the kept table's rows and columns as they are.
CREATE OR REPLACE TEMP TABLE {target} AS SELECT * FROM {source};
