-- The passes of one run, in order, for the choice of its steady pass.
-- Inputs: _passes (segment_passes.sql).
-- Parameters:
--   $run_id INTEGER: the run
-- Output: rows, one per pass of the run, in pass order:
--   pass BIGINT: the pass
--   partial BOOLEAN: it holds fewer anchors than a pass should
SELECT pass, partial FROM _passes WHERE run_id = $run_id ORDER BY pass;
