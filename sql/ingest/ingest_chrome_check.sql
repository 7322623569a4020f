-- What the parts of a Chrome trace gave, once every part is in: the events kept, and the complete events
-- whose ts or dur cannot be a time (NULL from ingest_chrome_part: missing, not a number, out of range, a
-- negative or boolean dur), which make the ingest refuse the file naming the first of them.
-- Inputs: trace_events rows of run $run_id.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: rows, exactly one:
--   events BIGINT: events kept
--   bad BIGINT: complete events without a valid ts or dur
--   bad_first_seq BIGINT: seq of the first of those (part index * 2^32 + its position in the part, from 1)
SELECT count(*) AS events,
    count(*) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR dur_ns IS NULL)) AS bad,
    min(seq) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR dur_ns IS NULL)) AS bad_first_seq
FROM trace_events WHERE run_id = $run_id;
