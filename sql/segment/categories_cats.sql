-- The category of each categorized (name, op type).
-- Inputs: _cats (categories.sql).
-- Parameters: none.
-- Output: rows, one per row of _cats:
--   name VARCHAR: the kernel name
--   op_type VARCHAR: its op type
--   category VARCHAR: its category
SELECT name, op_type, category FROM _cats;
