-- Per run, what the split of its activities by profiler step found.
-- Inputs: _bd_step_summary (breakdown_steps.sql).
-- Parameters: none.
-- Output: one row per run of _bd_act: run_id, marks (its ProfilerStep#N annotations), stepped (activities
--   with a step), unstepped (activities in no step), unstepped_ns (their time), as _bd_step_summary has them.
SELECT run_id, marks, stepped, unstepped, unstepped_ns FROM _bd_step_summary;
