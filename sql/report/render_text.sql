-- A report's rows with every cell cast to text inside DuckDB (NULL stays NULL).
-- Inputs: TEMP _report (render_report.sql).
-- Parameters: none.
-- Output: rows, one per report row: its columns as VARCHAR.
SELECT COLUMNS(*)::VARCHAR FROM _report;
