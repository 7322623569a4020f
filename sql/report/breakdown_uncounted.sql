-- The activities report breakdown does not count, per run and kind, for its note.
-- Inputs: _bd_uncounted (breakdown_activity.sql or breakdown_activity_layers.sql).
-- Parameters: none.
-- Output: rows, one per run and kind, in run and kind order:
--   run_id INTEGER: the run
--   kind VARCHAR: the kind of activity (memcpy, memset, task)
--   activities BIGINT: how many
--   dur_ns BIGINT: their time
SELECT run_id, kind, activities, dur_ns FROM _bd_uncounted ORDER BY run_id, kind;
