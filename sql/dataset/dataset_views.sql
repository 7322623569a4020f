-- The views of a store as the SQL that creates them, in creation order: written into a dataset's
-- manifest so that another engine can rebuild them over the Parquet tables.
-- Inputs: duckdb_views() of the current database.
-- Parameters: none.
-- Output: rows, one per view of the schema main (view_name VARCHAR, sql VARCHAR), in creation order.
SELECT view_name, sql
FROM duckdb_views()
WHERE NOT internal AND NOT temporary AND schema_name = 'main' AND database_name = current_database()
ORDER BY view_oid;
