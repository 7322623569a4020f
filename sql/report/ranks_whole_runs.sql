-- Report `ranks` on a job with no layers to find (no attention kernel repeats: a CNN, a collective benchmark):
-- every rank's kernels in one unit, the whole run (run_wide.sql), as pass 0 of one pass, so that the ranks are
-- compared over the run: compute time, slowest rank, last arrival at the collectives, matched by their order.
-- Inputs: _assigned (run_wide.sql: pass and layer NULL, unit 'run').
-- Parameters: none.
-- Output: TEMP _assigned, the same rows with pass 0.
-- Output: TEMP _passes, one row per run (the columns ranks_shape.sql and pipeline_stage.sql read):
--   run_id INTEGER: the run
--   pass BIGINT: 0
--   partial BOOLEAN: false
--   expected BIGINT: NULL (no anchors)
CREATE OR REPLACE TEMP TABLE _assigned AS SELECT * REPLACE (0::BIGINT AS pass) FROM _assigned;
CREATE OR REPLACE TEMP TABLE _passes AS
SELECT DISTINCT run_id, 0::BIGINT AS pass, false AS partial, NULL::BIGINT AS expected FROM _assigned;
