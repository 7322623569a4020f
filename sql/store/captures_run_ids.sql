-- The runs of exact names, all looked up at once (the runs a folder ingest landed, paired as graph captures and
-- replays).
-- Inputs: runs.
-- Parameters:
--   $n VARCHAR[]: run names
-- Output: rows, one per name that exists: its name (VARCHAR) and run_id (INTEGER).
SELECT name, run_id FROM runs WHERE name IN (SELECT unnest($n));
