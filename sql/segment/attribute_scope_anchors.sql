-- The kernels attribute_modules.sql attributes when the module tree is asked how many layers a candidate
-- anchor's passes hold: every kernel of every candidate anchor set (anchor_candidates.sql), once.
-- Inputs: _anchors (anchor_candidates.sql: src_run is the kernel's run), kernels.
-- Parameters: none.
-- Output: TEMP _attr_scope, one row per distinct candidate anchor kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   correlation_id BIGINT: its correlation id (links it to its runtime launch)
CREATE OR REPLACE TEMP TABLE _attr_scope AS
SELECT DISTINCT k.run_id, k.seq, k.correlation_id
FROM (SELECT DISTINCT src_run, seq FROM _anchors) a JOIN kernels k ON k.run_id = a.src_run AND k.seq = a.seq;
