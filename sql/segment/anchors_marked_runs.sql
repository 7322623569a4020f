-- The runs that mark their steps: an LLM serving step annotation (SGLang step[...], vLLM execute_...), where a
-- kernel that repeats once per layer may anchor them when no attention kernel does, or torch.profiler's
-- ProfilerStep#N. In either, an attention kernel that runs once in each step may anchor a model of one layer.
-- Inputs: host_events, serving_step and step_mark (macros.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids with such an annotation:
--   run_id INTEGER: the run
--   serving BOOLEAN: it has a serving step annotation (not only ProfilerStep#N)
SELECT run_id, bool_or(serving_step(name)) AS serving FROM host_events
WHERE run_id IN (SELECT unnest($run_ids)) AND cat IN ('user_annotation', 'gpu_user_annotation') AND step_mark(name)
GROUP BY run_id ORDER BY run_id;
