-- The columns of a report's rows (the cursor's description names and types them; no row is read).
-- Inputs: TEMP _report (render_report.sql).
-- Parameters: none.
-- Output: rows, none: the columns of _report.
SELECT * FROM _report LIMIT 0;
