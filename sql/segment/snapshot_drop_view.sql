-- Drop one view of tracedb_cache where tracedb keeps its tables (a kept table's or the index's name): a
-- view there is never read, and tracedb segment makes a table of that name.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `target`, the view in tracedb_cache.
-- Inputs: none.
-- Parameters: none.
-- Output: the view dropped.
DROP VIEW IF EXISTS {target};
