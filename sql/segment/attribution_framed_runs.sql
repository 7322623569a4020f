-- The runs some of whose assigned kernels have an nn.Module frame.
-- Inputs: _assigned (segment_assign.sql), _attr (attribute_modules.sql).
-- Parameters: none.
-- Output: rows, one per such run:
--   run_id INTEGER: the run
SELECT DISTINCT s.run_id FROM _assigned s JOIN _attr a USING (run_id, seq) WHERE a.nn_module IS NOT NULL;
