-- The distinct values of one column of a table of an Nsight Systems export (the devices of its activity), on
-- the file's own sqlite3 connection. The placeholders column and table are quoted.
-- Inputs: the SQLite file's table.
-- Parameters: none.
-- Output: rows, one per distinct value of the column.
SELECT DISTINCT {column} FROM {table};
