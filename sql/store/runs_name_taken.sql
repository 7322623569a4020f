-- Whether a run of a name exists (`tracedb runs rename` refuses a name taken).
-- Inputs: runs.
-- Parameters:
--   $n VARCHAR: the name
-- Output: rows, one (the constant 1) when the name is taken, none otherwise.
SELECT 1 FROM runs WHERE name = $n;
