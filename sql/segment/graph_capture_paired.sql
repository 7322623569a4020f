-- The runs, of some, paired with a graph capture (tag capture), whose graph replays take the capture's
-- frames.
-- Inputs: runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one row:
--   run_ids INTEGER[]: those runs, in run order; NULL when none
SELECT list(run_id ORDER BY run_id) AS run_ids FROM runs WHERE run_id IN (SELECT unnest($run_ids))
AND map_contains(tags, 'capture');
