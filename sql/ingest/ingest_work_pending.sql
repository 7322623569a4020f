-- The runs without a kernel_work row (a store just migrated: their work is computed then).
-- Inputs: runs, kernel_work.
-- Parameters: none.
-- Output: rows, one per such run, in order: its run_id (INTEGER).
SELECT run_id FROM runs WHERE run_id NOT IN (SELECT run_id FROM kernel_work) ORDER BY 1;
