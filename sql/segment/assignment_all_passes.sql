-- Every (run, pass), for a layer assignment of every pass (the layer-0 walls that pick the steady pass).
-- Inputs: _passes (segment_passes.sql).
-- Parameters: none.
-- Output: rows, one per (run, pass):
--   run_id INTEGER: the run
--   pass BIGINT: the pass
SELECT run_id, pass FROM _passes;
