-- The rows of a table of an Nsight Systems export, on the file's own sqlite3 connection (the placeholder table
-- is the table, quoted).
-- Inputs: the SQLite file's table.
-- Parameters: none.
-- Output: rows, one: the count (integer).
SELECT count(*) FROM {table};
