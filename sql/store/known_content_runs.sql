-- Every stored run with its content hash and byte count, read once before a folder ingest's workers start
-- (each checks its trace against them before parsing).
-- Inputs: runs.
-- Parameters: none.
-- Output: rows, one per run, by run_id: run_id (INTEGER), name (VARCHAR), content_hash (VARCHAR) and
--   source_bytes (BIGINT).
SELECT run_id, name, content_hash, source_bytes FROM runs ORDER BY run_id;
