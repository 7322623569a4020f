-- One run's rows of one table (or of the kernels view) as one Parquet file of the run's partition folder.
-- run_id is left out of the file: the folder's name (run_id=N) holds it, as Hive partitioning reads it.
-- A run without rows in the table still gets a file (no rows, the table's columns), so every table of a
-- dataset has a file to take its column types from. The table name is a placeholder filled by sql.ident.
-- Inputs: the table or view named by the placeholder (a store's, or a side store's).
-- Parameters:
--   $run_id INTEGER: the run to write
--   $path VARCHAR: the Parquet file to write
-- Output: the Parquet file at $path (ZSTD-compressed).
COPY (SELECT * EXCLUDE (run_id) FROM {table} WHERE run_id = $run_id) TO $path (FORMAT parquet, COMPRESSION zstd);
