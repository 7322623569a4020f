-- The runs that made graph capture calls (cudaStreamBeginCapture, hipGraphInstantiate, ...): the only ones a
-- folder ingest looks into further for graph captures (graph_capture_roles.sql), so that a folder of many
-- ranks without any pays one scan of its runtime calls' names (engine/loading/captures.py).
-- Inputs: trace_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids with such a call, in run order:
--   run_id INTEGER: the run
SELECT DISTINCT run_id FROM trace_events
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND ph = 'X' AND kind IS NULL AND launch_call(cat)
  AND regexp_matches(name, 'StreamBeginCapture|GraphInstantiate')
ORDER BY run_id;
