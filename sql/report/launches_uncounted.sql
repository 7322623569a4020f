-- Report launches: the memcpy and memset of the runs, which the per-unit rows do not count (as report
-- breakdown counts them: not busy), for a note per run.
-- Inputs: _bd_uncounted (breakdown_activity.sql or breakdown_activity_layers.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run and kind, in run and kind order:
--   run_id INTEGER: the run
--   kind VARCHAR: the kind
--   activities BIGINT: how many
--   dur_ns BIGINT: their time
SELECT run_id, kind, activities, dur_ns FROM _bd_uncounted WHERE run_id IN (SELECT unnest($run_ids))
ORDER BY run_id, kind;
