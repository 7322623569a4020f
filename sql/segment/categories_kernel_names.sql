-- The distinct (name, op type) of the runs' kernels, as the names categories.sql categorizes.
-- Inputs: kernels (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _names, one row per distinct (name, op type):
--   name VARCHAR: the kernel name
--   op_type VARCHAR: its op type
CREATE OR REPLACE TEMP TABLE _names AS SELECT DISTINCT name, op_type FROM kernels
WHERE run_id IN (SELECT unnest($run_ids));
