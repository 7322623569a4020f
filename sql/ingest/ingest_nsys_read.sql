-- The rows of a table of an Nsight Systems export in the file's order, read in Arrow batches on the file's own
-- sqlite3 connection. The placeholder columns is the reader's quoted column list, table the table quoted, and
-- where empty or a WHERE clause of one device or of the threads of some processes, whose positional values
-- are bound with it.
-- Inputs: the SQLite file's table.
-- Parameters: none.
-- Output: rows, one per row of the table kept: the columns read.
SELECT {columns} FROM {table}{where} ORDER BY rowid;
