-- The runs that record an LLM serving step annotation (SGLang step[...], vLLM execute_...): a kernel that
-- repeats once per layer may anchor them when no attention kernel does.
-- Inputs: host_events, serving_step (macros.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids with such an annotation:
--   run_id INTEGER: the run
SELECT DISTINCT run_id FROM host_events WHERE run_id IN (SELECT unnest($run_ids))
AND cat IN ('user_annotation', 'gpu_user_annotation') AND serving_step(name);
