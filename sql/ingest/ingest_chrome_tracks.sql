-- Tracks of a Chrome trace: process_name / thread_name / *_sort_index metadata events, one row per
-- (pid, tid) seen in them, each with its process's name.
-- Inputs: trace_events rows of the runs $run_ids with ph 'M' (args.name and args.sort_index are in extra_args).
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
-- Output: rows in tracks (core_class NULL: ingest_chrome_cores.sql sets it).
INSERT INTO tracks BY NAME
SELECT run_id, pid, tid, max(process_name) OVER (PARTITION BY run_id, pid) AS process_name, thread_name, sort_index
FROM (
    SELECT run_id, pid, tid,
        max(arg_name) FILTER (WHERE name = 'process_name') AS process_name,
        max(arg_name) FILTER (WHERE name = 'thread_name') AS thread_name,
        max(sort_index) FILTER (WHERE name IN ('process_sort_index', 'thread_sort_index')) AS sort_index
    FROM (SELECT run_id, pid, tid, name, extra_args ->> 'name' AS arg_name,
                 TRY_CAST(extra_args ->> 'sort_index' AS BIGINT) AS sort_index
          FROM trace_events WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND ph = 'M')
    GROUP BY ALL
);
