-- How many kernels of the store have a stored segmentation (`tracedb sql` notes that kernel_layers and
-- kernel_segments stay empty until runs are segmented).
-- Inputs: kernel_segments.
-- Parameters: none.
-- Output: rows, one: the count of kernel_segments rows (BIGINT).
SELECT count(*) FROM kernel_segments;
