-- The file the connection's current database lives in (empty or NULL for an in-memory store).
-- Inputs: duckdb_databases().
-- Parameters: none.
-- Output: rows, one: the database's path (VARCHAR).
SELECT path FROM duckdb_databases() WHERE database_name = current_database();
