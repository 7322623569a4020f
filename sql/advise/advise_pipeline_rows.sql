-- Advise: whether report pipeline left its rows (_pl_rows) for rule pipeline-bubble.
-- Inputs: duckdb_tables().
-- Parameters: none.
-- Output: rows, exactly one:
--   tables BIGINT: 1 when _pl_rows exists, else 0
SELECT count(*) AS tables FROM duckdb_tables() WHERE table_name = '_pl_rows';
