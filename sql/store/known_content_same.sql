-- The stored runs of a content hash (a trace already stored is not parsed again).
-- Inputs: runs.
-- Parameters:
--   $h VARCHAR: the content hash
-- Output: rows, one per run of that content, by run_id: its run_id (INTEGER) and name (VARCHAR).
SELECT run_id, name FROM runs WHERE content_hash = $h ORDER BY run_id;
