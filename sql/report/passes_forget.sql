-- Report passes: an earlier report's rows are not these runs' (report_passes.sql adds each phase's).
-- Inputs: _pass_rows.
-- Parameters: none.
-- Output: TEMP _pass_rows dropped when it exists.
DROP TABLE IF EXISTS _pass_rows;
