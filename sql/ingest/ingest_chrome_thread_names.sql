-- The first thread names of a Chrome trace without device activity (its refusal names them, in case they are
-- cores a --core-rule maps).
-- Inputs: tracks.
-- Parameters:
--   $r INTEGER: the run
-- Output: rows, up to 8, in order: a thread_name (VARCHAR).
SELECT DISTINCT thread_name FROM tracks WHERE run_id = $r AND thread_name IS NOT NULL
ORDER BY 1 LIMIT 8;
