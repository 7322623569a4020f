-- The content hash of the stored run of a name (a trace refused when its name is taken by other content).
-- Inputs: runs.
-- Parameters:
--   $n VARCHAR: the run name
-- Output: rows, none or one: the run's content_hash (VARCHAR).
SELECT content_hash FROM runs WHERE name = $n;
