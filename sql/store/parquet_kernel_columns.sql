-- The columns of the kernels view, as a dataset's manifest describes them.
-- Inputs: kernels (views.sql).
-- Parameters: none.
-- Output: DuckDB's DESCRIBE rows of the view, one per column: its name and type first.
DESCRIBE kernels;
