-- Report `critical-path` of a job's rank on its own (without --job): the other runs of the store that share its
-- job tag, whose collectives say when the rank's communication ops could start moving data.
-- Inputs: runs, kernels.
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
-- Output: rows, one per run of a selected run's job (the selected runs among them) that has device activity:
--   run_id INTEGER: the run
SELECT DISTINCT o.run_id
FROM runs s
JOIN runs o ON list_extract(map_extract(o.tags, 'job'), 1) = list_extract(map_extract(s.tags, 'job'), 1)
WHERE s.run_id IN (SELECT unnest($run_ids)) AND EXISTS (SELECT 1 FROM kernels k WHERE k.run_id = o.run_id)
ORDER BY o.run_id;
