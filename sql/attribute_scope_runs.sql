-- The kernels attribute_modules.sql attributes: every kernel of the selected runs.
-- Inputs: kernels. Parameters: $run_ids INTEGER[].
-- Output: TEMP _attr_scope(run_id INTEGER, seq BIGINT, correlation_id BIGINT): one row per kernel.
CREATE OR REPLACE TEMP TABLE _attr_scope AS
SELECT run_id, seq, correlation_id FROM kernels WHERE run_id IN (SELECT unnest($run_ids));
