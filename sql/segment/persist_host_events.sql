-- How many host events the runs recorded (none: no module attribution, every kernel's module unknown).
-- Inputs: host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one row:
--   events BIGINT: their host events
SELECT count(*) AS events FROM host_events WHERE run_id IN (SELECT unnest($run_ids));
