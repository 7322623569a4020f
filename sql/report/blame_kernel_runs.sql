-- The runs of a job that have kernel rows (an Ascend rank folder with communication.json only has none: it
-- takes part in the collectives, and only the ranks with kernels are segmented).
-- Inputs: kernels (views.sql).
-- Parameters:
--   $r INTEGER[]: the job's runs
-- Output: rows, one per run of $r with a kernel: its run_id (INTEGER).
SELECT DISTINCT run_id FROM kernels WHERE run_id IN (SELECT unnest($r));
