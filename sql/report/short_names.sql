-- The short name of each of some kernel names (a mangled or templated name as a table for people shows it).
-- Inputs: kernel_names (views.sql).
-- Parameters:
--   $names VARCHAR[]: the kernel names
-- Output: rows, one per name of $names that a kernel of the store has:
--   name VARCHAR: the kernel name
--   short_name VARCHAR: its short name
SELECT name, short_name FROM kernel_names WHERE name IN (SELECT unnest($names));
