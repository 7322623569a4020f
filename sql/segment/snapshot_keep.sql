-- Copy one session table of a segmentation into the store (tracedb segment).
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `target`, the kept table in tracedb_cache;
--   `source`, the session table (temp.main).
-- Inputs: the session table.
-- Parameters: none.
-- Output: TABLE target, the session table's rows and columns as they are.
CREATE TABLE {target} AS SELECT * FROM {source};
