-- Every row of a table of an SQLite export (Ascend, rocpd), its columns in the order of the reader's spec (NULL
-- for an optional column the file lacks), read in Arrow batches on the file's own sqlite3 connection. The
-- placeholder columns is that list, built per column by the reader; the placeholder table is the table, quoted.
-- Inputs: the SQLite file's table.
-- Parameters: none.
-- Output: rows, one per row of the table: the columns of the spec.
SELECT {columns} FROM {table};
