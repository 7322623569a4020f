-- No backward norm gradients: a forward segmentation's empty _bwd_norm (backward_norm_grads.sql fills it for
-- backward passes), which segment_assign.sql reads.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _bwd_norm, no rows:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel
CREATE OR REPLACE TEMP TABLE _bwd_norm AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS seq LIMIT 0;
