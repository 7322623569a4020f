-- Given (name, op type) pairs as the names categories.sql categorizes. Both columns are cast: op types all
-- NULL (a GPU trace) would type the column "NULL", and _cats keeps one shape.
-- Inputs: none (the lists given).
-- Parameters:
--   $names VARCHAR[]: the kernel names
--   $op_types VARCHAR[]: their op types, in the order of $names
-- Output: TEMP _names, one row per pair:
--   name VARCHAR: the kernel name
--   op_type VARCHAR: its op type
CREATE OR REPLACE TEMP TABLE _names AS SELECT unnest($names)::VARCHAR AS name, unnest($op_types)::VARCHAR AS op_type;
