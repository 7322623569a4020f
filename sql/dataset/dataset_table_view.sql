-- A partitioned table of a dataset as a view over its Parquet files, columns in the store's order and types:
-- run_id comes from the partition folder (run_id=N) as INTEGER, as the store types it; the other columns
-- keep the types DuckDB wrote (BIGINT ns, DECIMAL, MAP, lists). The table name and its column list are
-- placeholders filled by sql.ident.
-- Inputs: the connection variable tracedb_files (dataset_files.sql).
-- Parameters: none.
-- Output: VIEW named by the placeholder, replacing the empty table of that name.
DROP TABLE {table};
CREATE VIEW {table} AS
    SELECT {columns}
    FROM read_parquet(getvariable('tracedb_files').{table}, hive_partitioning = true,
                      hive_types = {{'run_id': 'INTEGER'}});
