-- The kernel dispatches of a rocprofv3 CSV capture (one with none is refused).
-- Inputs: TEMP _rcsv_rows.
-- Parameters: none.
-- Output: rows, one: the count of kernel_trace rows (BIGINT).
SELECT count(*) FROM _rcsv_rows WHERE part = 'kernel_trace';
