-- Whether some kernel of the bound runs is backward work (a capture of forward and optimizer work has no
-- backward pass to find).
-- Inputs: _phase (kernel_phases.sql).
-- Parameters: none.
-- Output: rows, one row:
--   has_backward BOOLEAN: a kernel of phase backward exists
SELECT EXISTS (SELECT 1 FROM _phase WHERE phase = 'backward') AS has_backward;
