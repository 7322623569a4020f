-- Whether each of some runs has kernels to segment: an Ascend rank folder with only its communication
-- analyses has none (binding.py leaves such runs out, with a note).
-- Inputs: runs, kernels (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids, in run order:
--   run_id INTEGER: the run
--   name VARCHAR: its name
--   has_kernels BOOLEAN: it has a kernel that is not communication
SELECT r.run_id, r.name,
    EXISTS (SELECT 1 FROM kernels k WHERE k.run_id = r.run_id AND k.kind IS DISTINCT FROM 'comm') AS has_kernels
FROM runs r WHERE r.run_id IN (SELECT unnest($run_ids))
ORDER BY r.run_id;
