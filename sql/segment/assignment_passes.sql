-- Every pass of the runs, for the choice of passes (--pass N, all, steady, auto, mean).
-- Inputs: _passes (segment_passes.sql).
-- Parameters: none.
-- Output: rows, one per (run, pass), in that order:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   partial BOOLEAN: it holds fewer anchors than a pass should
SELECT run_id, pass, partial FROM _passes ORDER BY run_id, pass;
