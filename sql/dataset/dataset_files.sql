-- The Parquet files of each table of a dataset, as a connection variable the dataset's table views read
-- (a view cannot take a bound parameter; a variable can be bound, and read_parquet takes it as a constant).
-- Set on every connection to a dataset before its views are used.
-- Inputs: none.
-- Parameters:
--   $files STRUCT: one field per table, named as the table, holding its file paths (VARCHAR[])
-- Output: the variable tracedb_files.
SET VARIABLE tracedb_files = $files;
