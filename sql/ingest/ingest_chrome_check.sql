-- What the parts of a Chrome trace gave, once every part is in: the events kept, and the complete events
-- whose ts or dur cannot be a time (NULL from ingest_chrome_part: missing, not a number, out of range, a
-- negative or boolean dur), which make the ingest refuse the file naming the first of them.
-- Inputs: trace_events rows of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a Chrome trace's, or a batch of small traces read at once)
-- Output: rows, one per run that kept an event (a run without one has no row):
--   run_id INTEGER: the run
--   events BIGINT: events kept
--   bad BIGINT: complete events without a valid ts or dur
--   bad_first_seq BIGINT: seq of the first of those (part index * 2^32 + its position in the part, from 1)
SELECT run_id, count(*) AS events,
    count(*) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR dur_ns IS NULL)) AS bad,
    min(seq) FILTER (WHERE ph = 'X' AND (start_ns IS NULL OR dur_ns IS NULL)) AS bad_first_seq
FROM trace_events WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]))
GROUP BY run_id;
