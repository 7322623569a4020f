-- What each run is to graph capture pairing (engine/loading/captures.py), from its runtime calls: a graph
-- capture holds stream-capture or graph-instantiation calls (cudaStreamBeginCapture, hipGraphInstantiate,
-- ...) and kernel launch calls that ran no kernel of the trace (a captured launch runs only when its graph
-- is replayed): in vLLM's FULL capture 421 of its 428 launch calls, in the piecewise one 361 of 460, in
-- FLUX.1's 1,567 of 3,114 (that capture also runs the model eagerly). A graph replay holds graph launch
-- calls (cudaGraphLaunch, hipGraphLaunch) whose correlation id its kernels carry. Other calls that mention
-- capture (hipStreamGetCaptureInfo, cudaStreamIsCapturing) are made by replays too: FLUX.1's replay makes 6.
-- Inputs: trace_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids that has runtime calls, in run order:
--   run_id INTEGER: the run
--   capture_calls BIGINT: stream-capture begin and graph-instantiation calls
--   launches BIGINT: kernel launch calls (graph launches and host functions aside)
--   not_run BIGINT: of those, the calls whose correlation id no device activity of the run carries
--   named BIGINT: of those, the calls that carry their kernel's name (extra_args: a capture ingest)
--   graph_launches BIGINT: graph launch calls whose correlation id some device activity carries
WITH calls AS (
    SELECT run_id, name, correlation_id, extra_args
    FROM trace_events
    WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND ph = 'X' AND kind IS NULL AND launch_call(cat)
), ran AS (
    SELECT DISTINCT run_id, correlation_id FROM trace_events
    WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND kind IS NOT NULL AND correlation_id IS NOT NULL
), marked AS (
    SELECT c.*, r.run_id IS NOT NULL AS did_run,
        regexp_matches(c.name, '(?i)graphlaunch') AS graph_launch,
        regexp_matches(c.name, '(?i)launch') AND NOT regexp_matches(c.name, '(?i)graphlaunch|hostfunc') AS launch
    FROM calls c LEFT JOIN ran r USING (run_id, correlation_id)
)
SELECT run_id,
    count(*) FILTER (WHERE regexp_matches(name, 'StreamBeginCapture|GraphInstantiate')) AS capture_calls,
    count(*) FILTER (WHERE launch) AS launches,
    count(*) FILTER (WHERE launch AND NOT did_run) AS not_run,
    count(*) FILTER (WHERE launch AND NOT did_run AND extra_args ->> 'kernel' IS NOT NULL) AS named,
    count(*) FILTER (WHERE graph_launch AND did_run) AS graph_launches
FROM marked
GROUP BY run_id
ORDER BY run_id;
