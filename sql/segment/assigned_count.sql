-- How many kernels the layer assignment holds (none: no category by module and no stage to find).
-- Inputs: _assigned (segment_assign.sql).
-- Parameters: none.
-- Output: rows, one row:
--   kernels BIGINT: the assigned kernels
SELECT count(*) AS kernels FROM _assigned;
