-- Advise rule `host-bound`: the steps whose critical paths it walks: each run's ProfilerStep#N annotations on
-- the host (the steps advise_runs.sql sums into the step time). A run without them is walked over its whole
-- trace; a kernel_details.csv run (Step Id, no host side) has no host on its path.
-- Inputs: _adv_marks (advise_runs.sql).
-- Parameters: none.
-- Output: rows, one per run and step:
--   run_id INTEGER: the run
--   step BIGINT: N of ProfilerStep#N
SELECT DISTINCT run_id, step FROM _adv_marks ORDER BY run_id, step;
