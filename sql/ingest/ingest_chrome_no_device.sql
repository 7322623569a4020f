-- Those of some runs of a Chrome trace with no event of a kind (no device activity), after the finish.
-- Inputs: trace_events.
-- Parameters:
--   $r INTEGER[]: the runs
-- Output: rows, one per run of $r without device activity, in order: the run (INTEGER).
SELECT r FROM (SELECT unnest($r) AS r) WHERE r NOT IN (SELECT DISTINCT run_id FROM trace_events
WHERE run_id IN (SELECT unnest($r)) AND kind IS NOT NULL) ORDER BY r;
