-- Report pipeline: how many kernels each selected run has (a stage without kernels has no passes).
-- Inputs: kernels (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run with kernels:
--   run_id INTEGER: the run
--   kernels BIGINT: its kernels of kind 'kernel'
SELECT run_id, count(*) AS kernels FROM kernels WHERE run_id IN (SELECT unnest($run_ids)) AND kind = 'kernel'
GROUP BY run_id;
