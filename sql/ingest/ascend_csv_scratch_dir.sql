-- Where tracedb.ingest.ascend_csv writes a scratch copy of a CSV with mixed LF / CRLF line ends (DuckDB's
-- strict CSV reader takes one kind per file): beside the connection's database file, the ingest's side
-- store, whose folder the ingest already writes to; a temporary folder for an in-memory database.
-- Inputs: duckdb_databases().
-- Parameters: none.
-- Output: one row, the path of the current database's file (NULL or empty for an in-memory one).
SELECT path FROM duckdb_databases() WHERE database_name = current_database();
