-- Report compare --layer L: the last layer of the selected passes, for the error naming the layers there are.
-- Inputs: _assigned (segment_assign.sql).
-- Parameters: none.
-- Output: rows, exactly one: the largest layer (NULL without layers).
SELECT max(layer) FROM _assigned;
