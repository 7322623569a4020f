-- The events the parts of a Chrome trace inserted so far as run $run_id, removed before the loader inserts
-- them again: it reads ts as DECIMAL once a part meets a fraction that a double cannot hold
-- (tracedb.ingest.chrome_json.schema, INEXACT).
-- Inputs: trace_events.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: the run's trace_events rows deleted.
DELETE FROM trace_events WHERE run_id = $run_id;
