-- The first kernel of a dataset with a negative duration: a store never holds one (every reader refuses
-- it), so a dataset's files that do were not written by tracedb, and every report over them would be wrong.
-- Inputs: the dataset's view kernels_raw (views.sql) over its kernels_raw_* views (dataset_table_view.sql).
-- Parameters: none.
-- Output: at most one row:
--   run_id INTEGER: the run
--   name VARCHAR: the kernel
--   dur_ns BIGINT: its duration
SELECT run_id, name, dur_ns FROM kernels_raw WHERE dur_ns < 0 LIMIT 1;
