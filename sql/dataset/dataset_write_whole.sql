-- A table without a run_id column (kernel names, store metadata) as one Parquet file, whole.
-- The table name is a placeholder filled by sql.ident.
-- Inputs: the table named by the placeholder.
-- Parameters:
--   $path VARCHAR: the Parquet file to write
-- Output: the Parquet file at $path (ZSTD-compressed).
COPY (SELECT * FROM {table}) TO $path (FORMAT parquet, COMPRESSION zstd);
