-- What the parts of a Chrome trace gave, once every part is in.
-- Inputs: trace_events rows of run $run_id.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: rows, exactly one:
--   events BIGINT: events kept
--   no_ts BIGINT: complete events without a numeric ts (ingest refuses such a file)
--   no_ts_first_seq BIGINT: seq of the first of those
--   no_ts_first_name VARCHAR: its name
SELECT count(*) AS events, count(*) FILTER (WHERE ph = 'X' AND start_ns IS NULL) AS no_ts,
    min(seq) FILTER (WHERE ph = 'X' AND start_ns IS NULL) AS no_ts_first_seq,
    arg_min(name, seq) FILTER (WHERE ph = 'X' AND start_ns IS NULL) AS no_ts_first_name
FROM trace_events WHERE run_id = $run_id;
