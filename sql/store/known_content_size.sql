-- Whether a stored run has a trace's byte count (only then is the trace's content hash waited for).
-- Inputs: runs.
-- Parameters:
--   $b BIGINT: the trace's bytes
-- Output: rows, one (the constant 1) when a run has the byte count, none otherwise.
SELECT 1 FROM runs WHERE source_bytes = $b LIMIT 1;
