-- The session's _kernel_blocks, made empty the first time (anchor_blocks.sql and anchor_layer_ranges.sql fill
-- it), and the runs of the anchors whose kernels it may need.
-- Inputs: _anchors (segment_anchors.sql or anchor_candidates.sql).
-- Parameters: none.
-- Output: TEMP _kernel_blocks, one row per kernel attributed to a block instance before:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel
--   framed BOOLEAN: launched inside a block
--   cls VARCHAR: the block class
--   inst VARCHAR: the block instance
--   inst_no BIGINT: its number
--   call_ns BIGINT: the start of the call that launched it
-- Output: rows, one per run of _anchors:
--   src_run INTEGER: the run
CREATE TEMP TABLE IF NOT EXISTS _kernel_blocks (run_id INTEGER, seq BIGINT, framed BOOLEAN,
    cls VARCHAR, inst VARCHAR, inst_no BIGINT, call_ns BIGINT);
SELECT DISTINCT src_run FROM _anchors;
