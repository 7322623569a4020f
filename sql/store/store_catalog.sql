-- What a store's catalog holds in its schema main, in one query (~2 ms on a store of 17 tables and 10 views):
-- its base tables, the columns of its tables and views, and its views; read by every open of a store file
-- before any table is (engine/store/catalog.py). The catalog functions are named with their schema: a store's
-- macro named duckdb_tables would otherwise replace DuckDB's in the query.
-- Inputs: system.main.duckdb_tables(), duckdb_columns(), duckdb_views() of the current database.
-- Parameters: none.
-- Output: rows, one per base table, column of a table or view, and view of the schema main:
--   kind VARCHAR: table | column | view
--   name VARCHAR: the table or view (of a column: its table or view)
--   position INTEGER: a column's index in its table; NULL for a table or view
--   detail VARCHAR: a column as `name TYPE`, and ` = expr` for a column with a default or a computed value
--     (tracedb's have neither); NULL for a table or view
SELECT 'table' AS kind, table_name AS name, NULL AS position, NULL AS detail FROM system.main.duckdb_tables()
WHERE database_name = system.main.current_database() AND schema_name = 'main'
UNION ALL
SELECT 'column', table_name, column_index, column_name || ' ' || data_type || coalesce(' = ' || column_default, '')
FROM system.main.duckdb_columns()
WHERE database_name = system.main.current_database() AND schema_name = 'main'
UNION ALL
SELECT 'view', view_name, NULL, NULL FROM system.main.duckdb_views()
WHERE database_name = system.main.current_database() AND schema_name = 'main' AND NOT internal;
