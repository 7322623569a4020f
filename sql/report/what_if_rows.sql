-- Report what-if: the table of the replays' figures, filled by what_if_rows_add.sql.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _wi_rows, empty:
--   run_id INTEGER: the run (NULL: a job's window)
--   step BIGINT: the window's step; NULL: the whole trace
--   edit VARCHAR: the edit, or all of the above
--   measured_ns BIGINT: the window's measured time
--   predicted_ns BIGINT: its replayed time under the edit
--   pos INTEGER: the row's order
CREATE OR REPLACE TEMP TABLE _wi_rows (run_id INTEGER, step BIGINT, edit VARCHAR, measured_ns BIGINT,
predicted_ns BIGINT, pos INTEGER);
