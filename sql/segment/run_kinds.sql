-- Runs of the selection that come from a performance model: tagged kind=simulated or kind=predicted at
-- ingest (`--tag kind=simulated`).
-- Inputs: runs.
-- Parameters:
--   $run_ids INTEGER[]: the selection
-- Output: rows, one per such run, in run_id order:
--   run_id INTEGER: the run
SELECT run_id FROM runs
WHERE run_id IN (SELECT unnest($run_ids)) AND lower(tags['kind']) IN ('simulated', 'predicted')
ORDER BY run_id;
