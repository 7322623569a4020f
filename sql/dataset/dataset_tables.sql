-- The base tables of a store and their columns, in the store's column order: what a Parquet dataset
-- holds one folder of each. A table with a run_id column is written per run (one partition folder per
-- run), any other whole. Read from the catalog, so a table added by a later schema version is exported
-- without a change here.
-- Inputs: information_schema.columns, information_schema.tables of the current database.
-- Parameters: none.
-- Output: rows, one per column of a base table of the schema main (table_name, column_name, data_type, all
--   VARCHAR), ordered by table name and column position.
SELECT c.table_name, c.column_name, c.data_type
FROM information_schema.columns c
JOIN information_schema.tables t USING (table_catalog, table_schema, table_name)
WHERE t.table_type = 'BASE TABLE' AND c.table_schema = 'main' AND c.table_catalog = current_database()
ORDER BY c.table_name, c.ordinal_position;
