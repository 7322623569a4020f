-- The names of the GPUs an Nsight Systems run's kernels ran on (the run's device_name).
-- Inputs: TEMP _nsys_gpus, kernels_raw.
-- Parameters:
--   $r INTEGER: the run
-- Output: rows, one per distinct GPU name, in order: the name (VARCHAR).
SELECT DISTINCT g.name FROM _nsys_gpus g WHERE g.name IS NOT NULL AND
g.id IN (SELECT DISTINCT device_id FROM kernels_raw WHERE run_id = $r)
ORDER BY 1;
