-- The time range of the windows of the selected passes (segment_assign.sql reads the kernels inside it).
-- Inputs: _windows (segment_windows.sql), _sel (assignment_sel.sql).
-- Parameters: none.
-- Output: rows, one row:
--   win_lo BIGINT: the first window's start, ns; NULL without a selected pass
--   win_hi BIGINT: the last window's end, ns
SELECT min(win_start) AS win_lo, max(win_end) AS win_hi FROM _windows JOIN _sel USING (run_id, pass);
