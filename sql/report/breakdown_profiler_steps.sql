-- Whether the selected runs carry the Ascend profiler's own step figures (step_trace_time.csv), and which of
-- them have no kernel rows (their breakdown is those figures), for report breakdown's notes.
-- Inputs: step_times (schema.sql), _bd_no_kernels (breakdown_activity.sql or breakdown_activity_layers.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, exactly one:
--   steps BIGINT: lines of step_trace_time.csv the runs have
--   bare INTEGER[]: the runs without kernel rows that have such lines, in run order (NULL when none)
SELECT (SELECT count(*) FROM step_times WHERE run_id IN (SELECT unnest($run_ids))) AS steps,
       (SELECT list(run_id ORDER BY run_id) FROM _bd_no_kernels WHERE step_lines > 0) AS bare;
