-- The pairing keys graph captures carry already (tag capture_of), when a capture serves several replays paired
-- one command after another.
-- Inputs: runs.
-- Parameters:
--   $c INTEGER[]: the captures
-- Output: rows, one per run of $c: its capture_of tag (VARCHAR, NULL when it has none).
SELECT tags['capture_of'] FROM runs WHERE run_id IN (SELECT unnest($c));
