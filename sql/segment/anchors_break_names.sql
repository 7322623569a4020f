-- The names of one of the tables of kernel names that force pass breaks (phases_special_names.sql:
-- _p2p_names or _boundary_names), in order, as anchor_breaks.sql takes them.
-- Inputs: the table the placeholder names (an identifier quoted by sql.ident).
-- Parameters: none.
-- Output: rows, one per name, in name order:
--   name VARCHAR: the kernel name
SELECT name FROM {names_table} ORDER BY name;
