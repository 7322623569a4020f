-- The distinct kernel names categorized (phases.py reads the phase each name says, once per name).
-- Inputs: _cats (categories.sql).
-- Parameters: none.
-- Output: rows, one per distinct name:
--   name VARCHAR: the kernel name
SELECT DISTINCT name FROM _cats WHERE name IS NOT NULL;
