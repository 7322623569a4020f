-- What the schema tracedb_cache holds, from the catalog alone: every table with its columns, every view
-- (never read: a view's query could read a file, or never end). A kept segmentation is read only from base
-- tables whose columns and types are the ones tracedb segment makes (tracedb.engine.segmentation.snapshots).
-- Inputs: duckdb_tables(), duckdb_columns(), duckdb_views().
-- Parameters: none.
-- Output: rows, one per table or view of the store's schema tracedb_cache:
--   name VARCHAR: its name
--   kind VARCHAR: table | view
--   columns VARCHAR[]: a table's columns in order, each its name, a space and its DuckDB type; NULL for a view
SELECT t.table_name AS name, 'table' AS kind,
    list(c.column_name || ' ' || c.data_type ORDER BY c.column_index) AS columns
FROM duckdb_tables() t
JOIN duckdb_columns() c ON c.database_name = t.database_name AND c.schema_name = t.schema_name
    AND c.table_name = t.table_name
WHERE t.database_name = current_database() AND t.schema_name = 'tracedb_cache' AND NOT t.temporary
GROUP BY t.table_name
UNION ALL
SELECT view_name, 'view', NULL::VARCHAR[]
FROM duckdb_views()
WHERE database_name = current_database() AND schema_name = 'tracedb_cache' AND NOT temporary;
