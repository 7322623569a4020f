-- Report pipeline: the distinct kernel names of the runs, among which Python picks the pipeline sends and
-- receives (engine/segmentation/phases.py PIPELINE_P2P).
-- Inputs: kernels (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per distinct name:
--   name VARCHAR: the kernel name
SELECT DISTINCT name FROM kernels WHERE run_id IN (SELECT unnest($run_ids)) AND name IS NOT NULL;
