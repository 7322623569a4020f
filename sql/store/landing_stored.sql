-- The stored runs that share a content hash or a name with the traces a merge lands, in one query rather than
-- two per run.
-- Inputs: runs.
-- Parameters:
--   $hashes VARCHAR[]: the traces' content hashes
--   $names VARCHAR[]: their run names
-- Output: rows, one per such run, by run_id: run_id (INTEGER), name (VARCHAR) and content_hash (VARCHAR).
SELECT run_id, name, content_hash FROM runs WHERE content_hash IN
(SELECT unnest($hashes::VARCHAR[])) OR name IN (SELECT unnest($names::VARCHAR[]))
ORDER BY run_id;
