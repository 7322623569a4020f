-- A table of a dataset without partitions (kernel names, store metadata) as a view over its Parquet
-- files. Runs ingested into a dataset one by one each write their own file of such a table, so equal rows
-- of several files are one row, as in a store. The table name and its column list are placeholders filled
-- by sql.ident.
-- Inputs: the connection variable tracedb_files (dataset_files.sql).
-- Parameters: none.
-- Output: VIEW named by the placeholder, replacing the empty table of that name.
DROP TABLE {table};
CREATE VIEW {table} AS
    SELECT DISTINCT {columns}
    FROM read_parquet(getvariable('tracedb_files').{table}, hive_partitioning = false);
