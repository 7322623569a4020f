-- What identifies the rows of each of some runs in the key of a kept segmentation.
-- Inputs: runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids, in run order:
--   run_id INTEGER: the run
--   name VARCHAR: its name
--   content_hash VARCHAR: sha256 over its source files
--   ingested_at VARCHAR: when it was ingested
--   kernel_rows BIGINT: its rows in kernels_raw
SELECT run_id, name, content_hash, ingested_at::VARCHAR AS ingested_at, kernel_rows FROM runs
WHERE run_id IN (SELECT unnest($run_ids)) ORDER BY run_id;
