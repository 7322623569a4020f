-- No stages (report compare by layer, category, module or kernel): an empty _stages with the columns
-- layer_stages.sql gives, so compare_align.sql reads one shape.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _stages, empty:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   stage VARCHAR: its stage
CREATE OR REPLACE TEMP TABLE _stages (run_id INTEGER, seq BIGINT, stage VARCHAR);
