-- The session's TEMP tables (a segmentation's, which `tracedb segment` keeps and clock alignment sets aside).
-- Inputs: duckdb_tables().
-- Parameters: none.
-- Output: rows, one per TEMP table:
--   table_name VARCHAR: its name
SELECT table_name FROM duckdb_tables() WHERE temporary;
