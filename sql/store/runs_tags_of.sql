-- The names and tags of some runs after `tracedb runs tag` (what it reports).
-- Inputs: runs.
-- Parameters:
--   $i INTEGER[]: the runs
-- Output: rows, one per run of $i, by run_id: its name (VARCHAR) and tags (MAP(VARCHAR, VARCHAR)).
SELECT name, tags FROM runs WHERE run_id IN (SELECT unnest($i)) ORDER BY run_id;
