-- A report's rows dropped once rendered.
-- Inputs: TEMP _report (render_report.sql).
-- Parameters: none.
-- Output: TEMP _report dropped (when it exists).
DROP TABLE IF EXISTS _report;
