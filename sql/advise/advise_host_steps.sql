-- Advise rule `host-bound`: the steps whose critical paths it walks: each run's ProfilerStep#N annotations on
-- the host (the steps advise_runs.sql sums into the step time). A run without them is walked over its whole
-- trace; a kernel_details.csv run (Step Id, no host side) has no host on its path.
-- Inputs: host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run and step:
--   run_id INTEGER: the run
--   step BIGINT: N of ProfilerStep#N
SELECT DISTINCT run_id, CAST(regexp_extract(name, '^ProfilerStep#(\d+)$', 1) AS BIGINT) AS step
FROM host_events
WHERE run_id IN (SELECT unnest($run_ids)) AND starts_with(name, 'ProfilerStep#')
  AND regexp_matches(name, '^ProfilerStep#\d+$') AND cat IS DISTINCT FROM 'gpu_user_annotation'
ORDER BY run_id, step;
