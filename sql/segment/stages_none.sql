-- No stages (report compare by layer, category, module or kernel; backward passes): empty _stages and
-- _layer_kinds with the columns layer_stages.sql gives, so their readers read one shape.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _stages, empty:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   stage VARCHAR: its stage
-- Output: TEMP _layer_kinds, empty:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layer BIGINT: the layer
--   layer_kind VARCHAR: its kind
CREATE OR REPLACE TEMP TABLE _stages (run_id INTEGER, seq BIGINT, stage VARCHAR);
CREATE OR REPLACE TEMP TABLE _layer_kinds (run_id INTEGER, pass BIGINT, layer BIGINT, layer_kind VARCHAR);
