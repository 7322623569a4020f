-- The short names of kernel names that table kernel_names does not hold yet (computed in Python,
-- ingest/kernel_names.py), inside the caller's transaction.
-- Inputs: none.
-- Parameters:
--   $n VARCHAR[]: the new kernel names
--   $s VARCHAR[]: their short names, in the order of $n
-- Output: one row inserted into kernel_names per name of $n.
INSERT INTO kernel_names SELECT unnest($n), unnest($s);
