-- The selected runs of report ranks with their kernels of kind 'kernel' (a run without any, an Ascend rank
-- folder holding only communication analyses, takes part through its collectives).
-- Inputs: runs, kernels (views.sql).
-- Parameters:
--   $i INTEGER[]: the selected runs
-- Output: rows, one per run of $i: its run_id (INTEGER), name (VARCHAR) and count of kernels (BIGINT).
SELECT r.run_id, r.name, (SELECT count(*) FROM kernels k WHERE k.run_id = r.run_id AND
k.kind = 'kernel') FROM runs r WHERE r.run_id IN (SELECT unnest($i));
