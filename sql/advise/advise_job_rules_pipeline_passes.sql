-- Advise rule pipeline-bubble: whether report pipeline segmented any pass (_pl_passes).
-- Inputs: duckdb_tables().
-- Parameters: none.
-- Output: rows, exactly one:
--   tables BIGINT: 1 when _pl_passes exists, else 0
SELECT count(*) AS tables FROM duckdb_tables() WHERE table_name = '_pl_passes';
