-- Report compare --layer L: only layer L of the selected passes is compared.
-- Inputs: _assigned (segment_assign.sql).
-- Parameters:
--   $layer BIGINT: the layer
-- Output: TEMP _assigned, the rows of other layers (and of no layer) deleted.
DELETE FROM _assigned WHERE layer IS DISTINCT FROM $layer;
