-- What the parts of a Chrome trace gave, once every part is in. Inputs: trace_events rows of run $run_id.
-- Output: events kept, complete events without a numeric ts (ingest refuses such a file), and the seq and
-- name of the first of those.
SELECT count(*), count(*) FILTER (WHERE ph = 'X' AND start_ns IS NULL),
    min(seq) FILTER (WHERE ph = 'X' AND start_ns IS NULL),
    arg_min(name, seq) FILTER (WHERE ph = 'X' AND start_ns IS NULL)
FROM trace_events WHERE run_id = $run_id;
