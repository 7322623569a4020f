-- Stage the events of a Chrome trace-event JSON file as TEMP _ev, one row per event in file order
-- (rowid: the parts are read in order and DuckDB preserves insertion order).
-- Parameters: $files VARCHAR[] (the parts: JSON arrays of events), $cols (the explicit schema: ph, cat,
--   name, pid/tid as JSON text since producers write numbers and strings, ts DOUBLE or VARCHAR, dur,
--   args as a STRUCT of the keys tracedb reads), $base_ns (Kineto's baseTimeNanoseconds, else 0).
-- Placeholder `ts_ns`: the expression turning ts into integer ns, chosen by tracedb.ingest.chrome_json:
--   round(ts * 1000) for Kineto's numbers (relative µs < 2^43 convert exactly, PERFORMANCE.md), the exact
--   decimal text path for Ascend's string ts. Each timestamp becomes integer ns before any subtraction.
-- Output: _ev(ph, cat lower-cased, name, pid, tid, start_ns, dur_ns, args).
CREATE OR REPLACE TEMP TABLE _ev AS
SELECT ph, lower(cat) AS cat, name, pid::VARCHAR AS pid, tid::VARCHAR AS tid,
    $base_ns + {ts_ns} AS start_ns,
    greatest(CAST(round(coalesce(dur, 0) * 1000) AS BIGINT), 0) AS dur_ns,
    args
FROM read_json($files, format = 'array', columns = $cols);
