-- The run of an exact name (never a pattern).
-- Inputs: runs.
-- Parameters:
--   $n VARCHAR: the name
-- Output: rows, none or one: the run_id (INTEGER).
SELECT run_id FROM runs WHERE name = $n;
