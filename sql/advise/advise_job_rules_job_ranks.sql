-- Advise rule exposed-comm: a job's ranks in the store, selected or not (those without kernels too).
-- Inputs: runs (schema.sql).
-- Parameters:
--   $job VARCHAR: the job tag
-- Output: rows, one per run of the job, in run order:
--   run_id INTEGER: the run
SELECT run_id FROM runs WHERE list_extract(map_extract(tags, 'job'), 1) = $job ORDER BY run_id;
