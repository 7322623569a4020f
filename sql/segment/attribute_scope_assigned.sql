-- The kernels attribute_modules.sql attributes for module_categories.sql: the kernels of the selected passes
-- (segment_assign.sql) whose category the launching module or op can decide: all but communication, whose
-- category is its name's whatever launched it.
-- Inputs: kernels, _assigned.
-- Parameters: none.
-- Output: TEMP _attr_scope, one row per such kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   correlation_id BIGINT: its correlation id (links it to its runtime launch)
CREATE OR REPLACE TEMP TABLE _attr_scope AS
SELECT k.run_id, k.seq, k.correlation_id
FROM _assigned a JOIN kernels k USING (run_id, seq)
WHERE a.is_comm IS NOT TRUE;
