-- The layers of each run's passes: the most a forward pass holds (a backward one's when it has none).
-- Inputs: _seg_all (persist_phase_kernels.sql).
-- Parameters: none.
-- Output: rows, one per run with a layer:
--   run_id INTEGER: the run
--   layers BIGINT: its layers
SELECT run_id, coalesce(max(n) FILTER (WHERE phase = 'forward'), max(n)) AS layers
FROM (SELECT run_id, phase, pass, count(DISTINCT layer) AS n FROM _seg_all WHERE unit = 'layer' GROUP BY ALL)
GROUP BY run_id;
