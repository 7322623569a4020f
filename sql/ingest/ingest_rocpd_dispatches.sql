-- The kernel dispatches of a rocpd database (one with none is refused).
-- Inputs: TEMP _rpd_kernels.
-- Parameters: none.
-- Output: rows, one: the count of dispatches (BIGINT).
SELECT count(*) FROM _rpd_kernels;
