-- The tables of a profiler's SQLite export (views are not read), run on the file's own sqlite3 connection
-- (ingest/sqlite_file.py, and the readers of Nsight Systems, rocpd and Ascend exports).
-- Inputs: the SQLite file's sqlite_master.
-- Parameters: none.
-- Output: rows, one per table of the file: its name (text).
SELECT name FROM sqlite_master WHERE type = 'table';
