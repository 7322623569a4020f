-- The layer-0 wall time of every assigned pass: from the start of its first layer-0 kernel to the end of
-- its last.
-- Inputs: _assigned (segment_assign.sql).
-- Parameters: none.
-- Output: rows, one per (run, pass) with a layer 0:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   wall_ns BIGINT: its layer-0 wall, ns
SELECT run_id, pass, max(end_ns) - min(start_ns) AS wall_ns FROM _assigned WHERE layer = 0 GROUP BY ALL;
