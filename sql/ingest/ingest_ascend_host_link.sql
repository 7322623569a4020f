-- The host side of an Ascend profiler folder whose kernels come from kernel_details.csv: the folder's
-- trace_view.json (loaded into trace_events as this run's, ingest/ascend_host.py) holds the framework's host
-- events and the flows (cat async_npu) that tie each device task to the op that launched it. Each CSV kernel
-- takes, as its correlation id, the id of the flow that ends at the trace_view device task of its name that
-- starts with it (within 1 µs: the two files round the same start differently by a ns, as the AlexNet
-- capture's hcom ops do), so reports find its launch at the flow's start (attribute_modules.sql); then the trace_view's device tasks are removed, since the CSV already has
-- each kernel (and its shapes, PMU columns and duplicate marks), and runtime machinery tasks are not kernels;
-- only the EVENT_RECORD / EVENT_WAIT tasks stay (kind npu_task, which no kernel view reads): a stream's wait on
-- another is found by them (critical_path_nodes.sql).
-- A collective kernel_details.csv gives no stream takes the stream of its trace_view task (the stream of its
-- hardware tasks, ingest_chrome_tasks.sql), so that the path of report critical-path finds it on that stream.
-- Inputs: kernels_raw_ascend_csv, trace_events of run $run_id (after ingest_chrome_tracks and ingest_chrome_tasks).
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: kernels_raw_ascend_csv.stream_id of such collectives;
--   kernels_raw_ascend_csv.correlation_id (the flow id) of the run's kernels a device task with a flow
--   matches; the run's trace_events rows of device activity (kind NOT NULL) but the event tasks deleted; when
--   fewer than half the kernels matched, no link and no trace_events row.
UPDATE kernels_raw_ascend_csv SET correlation_id = m.flow_id
FROM (
    SELECT k.seq, f.correlation_id AS flow_id
    FROM kernels_raw_ascend_csv k
    JOIN trace_events t ON t.run_id = k.run_id AND t.name = k.name AND t.kind IS NOT NULL AND t.ph = 'X'
     AND t.start_ns BETWEEN k.start_ns - 1000 AND k.start_ns + 1000
    -- the flow's end ('f') lies at the task's start on the task's own stream (pid, tid)
    JOIN trace_events f ON f.run_id = t.run_id AND f.ph = 'f' AND f.cat = 'async_npu' AND f.pid = t.pid
     AND f.tid IS NOT DISTINCT FROM t.tid AND f.start_ns = t.start_ns
    WHERE k.run_id = $run_id
    QUALIFY row_number() OVER (PARTITION BY k.seq ORDER BY abs(t.start_ns - k.start_ns), t.seq, f.seq) = 1
) m
WHERE kernels_raw_ascend_csv.run_id = $run_id AND kernels_raw_ascend_csv.seq = m.seq;
UPDATE kernels_raw_ascend_csv SET stream_id = m.stream_id
FROM (
    SELECT k.seq, t.stream_id
    FROM kernels_raw_ascend_csv k
    JOIN trace_events t ON t.run_id = k.run_id AND t.name = k.name AND t.kind = 'comm' AND t.ph = 'X'
     AND t.start_ns BETWEEN k.start_ns - 1000 AND k.start_ns + 1000 AND t.stream_id IS NOT NULL
    WHERE k.run_id = $run_id AND k.kind = 'comm' AND k.stream_id IS NULL
    QUALIFY row_number() OVER (PARTITION BY k.seq ORDER BY abs(t.start_ns - k.start_ns), t.seq) = 1
) m
WHERE kernels_raw_ascend_csv.run_id = $run_id AND kernels_raw_ascend_csv.seq = m.seq;
-- fewer than half the kernels linked: not the host side of these kernels (another capture beside them, which
-- ascend_host.other_capture did not tell by its first times): none of its events stays
UPDATE kernels_raw_ascend_csv SET correlation_id = NULL
WHERE run_id = $run_id AND 2 * (SELECT count(correlation_id) FROM kernels_raw_ascend_csv WHERE run_id = $run_id)
                             < (SELECT count(*) FROM kernels_raw_ascend_csv WHERE run_id = $run_id);
DELETE FROM trace_events WHERE run_id = $run_id
  AND (kind IS NOT NULL AND NOT (kind = 'npu_task' AND regexp_matches(name, '(?i)^event_(record|wait)$'))
       OR NOT EXISTS (SELECT 1 FROM kernels_raw_ascend_csv WHERE run_id = $run_id AND correlation_id IS NOT NULL));
