-- The runs with a row of report ranks but no compute: ranks without kernels whose collectives were placed in a
-- layer of the ranks with kernels.
-- Inputs: TEMP _rk_layers.
-- Parameters: none.
-- Output: rows, one per such run: its run_id (INTEGER).
SELECT DISTINCT run_id FROM _rk_layers WHERE compute_ns IS NULL;
