-- The Parquet files a dataset connection's views read (the variable tracedb_files; a store has none).
-- Inputs: none.
-- Parameters: none.
-- Output: rows, one: the variable's value, a map of table name to file list, or NULL when it is unset.
SELECT getvariable('tracedb_files');
