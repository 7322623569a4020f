-- The kernels attribute_modules.sql attributes: every kernel of the selected runs.
-- Inputs: kernels.
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
-- Output: TEMP _attr_scope, one row per kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   correlation_id BIGINT: its correlation id (links it to its runtime launch)
CREATE OR REPLACE TEMP TABLE _attr_scope AS
SELECT run_id, seq, correlation_id FROM kernels WHERE run_id IN (SELECT unnest($run_ids));
