-- Two columns of a table of an Nsight Systems export, on the file's own sqlite3 connection: the name and value
-- of EXPORT_META_DATA, or the id and name (or label) of an ENUM_ table. The placeholders first, second and
-- table are the columns and the table, quoted.
-- Inputs: the SQLite file's table.
-- Parameters: none.
-- Output: rows, one per row of the table: the two columns.
SELECT {first}, {second} FROM {table};
