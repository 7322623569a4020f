-- The anchor kernels left to attribute: those of _attr_scope not in _kernel_blocks, and how many.
-- Inputs: _attr_scope (attribute_scope_anchors.sql), _kernel_blocks (module_tree_kernel_blocks.sql).
-- Parameters: none.
-- Output: rows deleted from TEMP _attr_scope (the kernels attributed before).
-- Output: rows, one row:
--   kernels BIGINT: the kernels left in _attr_scope
DELETE FROM _attr_scope WHERE (run_id, seq) IN (SELECT run_id, seq FROM _kernel_blocks);
SELECT count(*) AS kernels FROM _attr_scope;
