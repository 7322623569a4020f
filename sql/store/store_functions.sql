-- A function kept in the store's schema main: a macro, which DuckDB finds before its own functions of that
-- name (a store's macro `upper` or `sha256` replaces DuckDB's in every query). DuckDB lists functions in one
-- table with its ~3,300 own, so this is the costly part of the check of an open: ~15 ms. tracedb's own
-- macros (macros.sql) are TEMP, in the schema temp, and not listed.
-- Inputs: system.main.duckdb_functions() of the current database.
-- Parameters: none.
-- Output: rows, one per function of the schema main:
--   function_name VARCHAR: its name
--   function_type VARCHAR: macro, table_macro, ...
SELECT function_name, function_type FROM system.main.duckdb_functions()
WHERE database_name = system.main.current_database() AND schema_name = 'main';
