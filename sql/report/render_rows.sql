-- A report's rows as they are typed (read as a pyarrow table by Python API calls).
-- Inputs: TEMP _report (render_report.sql).
-- Parameters: none.
-- Output: rows, one per report row: its columns.
SELECT * FROM _report;
