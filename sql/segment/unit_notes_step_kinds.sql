-- The runs whose passes' step kind comes from the attention kernels' names, with no serving step annotation.
-- Inputs: _pass_info (segment_steps.sql).
-- Parameters: none.
-- Output: rows, one per such run, in run order:
--   run_id INTEGER: the run
--   passes BIGINT: its passes of a step kind so read
--   kinds VARCHAR[]: those step kinds, in order
SELECT run_id, count(*) AS passes, list(DISTINCT step_kind ORDER BY step_kind) AS kinds FROM _pass_info
WHERE kind_from = 'kernel-names' GROUP BY run_id ORDER BY run_id;
