-- Kernel names of some runs (or of every run) that kernel_names does not hold yet, for their short names.
-- Inputs: kernels, kernel_names.
-- Parameters:
--   $run_ids INTEGER[]: the runs; NULL: every run
-- Output: rows, one per distinct missing name:
--   name VARCHAR: the kernel name
SELECT DISTINCT k.name FROM kernels k
WHERE ($run_ids IS NULL OR k.run_id IN (SELECT unnest($run_ids::INTEGER[]))) AND k.name IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM kernel_names n WHERE n.name = k.name);
