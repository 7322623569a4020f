-- Report `critical-path`: the work of each run as nodes, and each node's binding predecessor: of the
-- things it waited for, the one released last. Walking back from a window's last node along these
-- pointers (engine/reports/critical_path.py) gives the chain of work that set the window's end.
-- Nodes:
--   device: every kernel, communication op, copy and fill (kernels), on its lane device:stream; a kernel
--     of the profile's communication category (NCCL/RCCL, DeepEP, ...: _cats) is a communication op;
--   host: every launch call (a runtime or driver call whose correlation id a device activity carries,
--     launch_call in macros.sql; in Ascend's trace_view.json, the op an async_npu flow leads from to a
--     task, e.g. aclnnMatmul) and every synchronising call (sync_call in macros.sql:
--     cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a blocking cudaMemcpy, hip* alike,
--     AscendCL@aclrtSynchronizeStream / Device), on its lane host:pid:tid.
-- Candidates of a device node, each with the time it released the node:
--   stream: the previous node on its lane (by start), released at its end;
--   launch: its launch call, released at its end, or at the node's start when the device began the work
--     before the call returned (a short kernel on an idle GPU starts ~5 us into a 6 us cudaLaunchKernel);
--     a graph launch is the launch of every kernel of its graph, so each is bound to it or to the kernel
--     before it on its stream;
--   event: the work another stream recorded an event after, when a Stream Wait Event (Kineto's cuda_sync; an
--     nsys export's synchronization row, ingest_nsys_insert.sql) made this node's stream wait for it, or an
--     Ascend EVENT_WAIT task held its stream, released at its end.
-- Candidates of a host node:
--   thread: the previous host node on its lane, released at its end;
--   sync (synchronising calls only): the device work it waited for, released at its end: the event's work
--     for an Event Sync, the last activity of its stream to end by the call's end for a Stream Sync (both
--     cuda_sync events), else the last activity of each stream to end by then; it binds only when it
--     ended after the call began (a call made
--     once the device was idle waited for nothing: its thread bound it). A host call starts when its
--     thread reaches it, so only a sync's end can be bound by the device.
-- critical_path_bind.sql picks each node's binding predecessor among them.
-- Inputs: kernels, kernel_launches, _cats (categories.sql over the runs' kernel names), host_events,
--   trace_events (cuda_sync, async_npu flows).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _cp_nodes, one row per node:
--   run_id INTEGER: the run
--   id BIGINT: the node, dense from 0 over every run in (run, start, end) order
--   side VARCHAR: device | host
--   kind VARCHAR: kernel | comm | memcpy | memset (device); launch | sync (host)
--   lane VARCHAR: device:DEVICE:STREAM or host:PID:TID
--   ref_seq BIGINT: kernels.seq of a device node, host_events.seq of a host node
--   name VARCHAR: the kernel's or the call's name
--   start_ns BIGINT: start, ns
--   end_ns BIGINT: end, ns
--   launch BIGINT: a device node's launch call (its id), bound or not; NULL without one in the trace;
--     critical_path_bind.sql then adds each node's binding predecessor
-- Output: TEMP _cp_cands, one row per candidate (report what-if replays the nodes over them):
--   id BIGINT: the node
--   pred BIGINT: the candidate node
--   release_ns BIGINT: when it released the node
--   edge VARCHAR: stream | launch | event | thread | sync (critical_path_collectives.sql adds collective)
--   pref INTEGER: its rank on a tie of releases, the lowest binding (stream or thread 0, event, sync or
--     collective 1, launch 2)
-- TEMP _cp_flows, _cp_launch and _cp_waits are scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _cp_flows AS
-- Ascend's trace_view.json links a task to the op that launched it by a flow (view kernel_launches, via
-- 'flow': 's' at the op's start on its thread, 'f' at the task's start on its stream; the op is the innermost
-- that starts there). Runtime tasks (EVENT_RECORD, ...: kind npu_task) are no nodes, so their launches are
-- none either. list_contains, not IN (SELECT unnest(...)): DuckDB pushes it into the view, below its window.
SELECT run_id, seq AS dev_seq, call_seq AS host_seq
FROM kernel_launches
WHERE list_contains($run_ids, run_id) AND via = 'flow' AND call_seq IS NOT NULL;

CREATE OR REPLACE TEMP TABLE _cp_nodes AS
WITH device AS (
    SELECT k.run_id, 'device' AS side,
        CASE WHEN k.kind = 'kernel' AND c.category = 'communication' THEN 'comm' ELSE k.kind END AS kind,
        'device:' || coalesce(CAST(k.device_id AS VARCHAR), '') || ':' || coalesce(CAST(k.stream_id AS VARCHAR), '')
            AS lane,
        k.seq AS ref_seq, k.name, k.start_ns, k.start_ns + k.dur_ns AS end_ns, k.correlation_id, k.device_id
    FROM kernels k
    LEFT JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
    WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm', 'memcpy', 'memset')
), launched AS (
    SELECT DISTINCT run_id, correlation_id FROM device WHERE correlation_id IS NOT NULL
), host_seqs AS (
    -- the launch calls, the synchronising calls and the ops flows lead from: a union of three joins (one filter
    -- OR-ing the three took 1.3 s over the 516 k host events of a 1.24 M-event trace, the union 0.1 s)
    SELECT h.run_id, h.seq FROM host_events h
    JOIN launched l ON l.run_id = h.run_id AND l.correlation_id = h.correlation_id
    WHERE h.run_id IN (SELECT unnest($run_ids)) AND launch_call(h.cat)
    UNION
    SELECT run_id, seq FROM host_events WHERE run_id IN (SELECT unnest($run_ids)) AND sync_call(cat, name)
    UNION
    SELECT run_id, host_seq FROM _cp_flows
), host AS (
    SELECT h.run_id, 'host' AS side, CASE WHEN sync_call(h.cat, h.name) THEN 'sync' ELSE 'launch' END AS kind,
        'host:' || coalesce(h.pid, '') || ':' || coalesce(h.tid, '') AS lane,
        h.seq AS ref_seq, h.name, h.start_ns, h.start_ns + h.dur_ns AS end_ns, h.correlation_id,
        NULL::INTEGER AS device_id
    FROM host_events h JOIN host_seqs USING (run_id, seq)
), nodes AS (
    SELECT *, row_number() OVER (ORDER BY run_id, start_ns, end_ns, side, ref_seq) - 1 AS id
    FROM (SELECT * FROM device UNION ALL SELECT * FROM host)
)
SELECT n.*,
    lag(id) OVER lane_order AS lane_pred,
    lag(end_ns) OVER lane_order AS lane_release
FROM nodes n
WINDOW lane_order AS (PARTITION BY run_id, lane ORDER BY start_ns, end_ns, id);

CREATE OR REPLACE TEMP TABLE _cp_launch AS
-- a device node's launch call: the first by start should two calls carry its id
SELECT d.id, h.id AS pred, least(h.end_ns, d.start_ns) AS release_ns, 'launch' AS edge, h.start_ns AS launch_ns
FROM _cp_nodes d JOIN _cp_nodes h
  ON h.run_id = d.run_id AND h.correlation_id = d.correlation_id AND h.side = 'host'
WHERE d.side = 'device'
QUALIFY row_number() OVER (PARTITION BY d.id ORDER BY h.start_ns, h.id) = 1;
INSERT INTO _cp_launch
SELECT d.id, h.id, least(h.end_ns, d.start_ns), 'launch', h.start_ns
FROM _cp_flows f
JOIN _cp_nodes d ON d.run_id = f.run_id AND d.ref_seq = f.dev_seq AND d.side = 'device'
JOIN _cp_nodes h ON h.run_id = f.run_id AND h.ref_seq = f.host_seq AND h.side = 'host'
WHERE d.id NOT IN (SELECT id FROM _cp_launch);

CREATE OR REPLACE TEMP TABLE _cp_waits AS
-- Kineto's cuda_sync events (PyTorch 2.4+): a Stream Wait Event made its stream wait for a cudaEventRecord,
-- an Event Sync its host thread. The event's work is the last activity on the recorded stream launched
-- before the cudaEventRecord call; the waiting work, the first activity on the waiting stream launched after
-- the cudaStreamWaitEvent call (or the cudaEventSynchronize call itself), as HTA pairs them
-- (hta/analyzers/critical_path_analysis.py). A Stream Sync names the stream its cudaStreamSynchronize waited on.
WITH syncs AS (
    SELECT t.run_id, t.name, t.correlation_id, t.stream_id, t.device_id,
        TRY_CAST(json_extract(t.extra_args, '$.wait_stream') AS BIGINT) AS wait_stream,
        TRY_CAST(json_extract(t.extra_args, '$.record_corr') AS BIGINT) AS record_corr
    FROM trace_events t
    WHERE t.run_id IN (SELECT unnest($run_ids)) AND t.cat = 'cuda_sync' AND t.ph = 'X'
), launched AS (
    SELECT d.run_id, d.id, d.end_ns, l.launch_ns, d.device_id, k.stream_id
    FROM _cp_nodes d JOIN _cp_launch l USING (id) JOIN kernels k ON k.run_id = d.run_id AND k.seq = d.ref_seq
), recorded AS (
    -- the event's work: the last launch on the recorded stream before the record call
    SELECT w.run_id, w.name, w.correlation_id, w.stream_id, w.device_id, s.id AS src, s.end_ns AS src_end
    FROM (SELECT w.*, r.start_ns AS record_ns FROM syncs w
          JOIN host_events r ON r.run_id = w.run_id AND r.correlation_id = w.record_corr AND launch_call(r.cat)
          WHERE w.record_corr IS NOT NULL) w
    ASOF JOIN launched s
      ON s.run_id = w.run_id AND s.stream_id = w.wait_stream AND s.launch_ns < w.record_ns
    WHERE s.device_id IS NOT DISTINCT FROM w.device_id OR w.device_id IS NULL
), waiting AS (
    -- a stream's waiting work: the first launch on it after the cudaStreamWaitEvent call
    SELECT r.run_id, r.src, r.src_end, c.id AS dst
    FROM (SELECT r.*, h.start_ns AS wait_ns FROM recorded r
          JOIN host_events h ON h.run_id = r.run_id AND h.correlation_id = r.correlation_id AND launch_call(h.cat)
          WHERE r.name = 'Stream Wait Event') r
    ASOF JOIN launched c
      ON c.run_id = r.run_id AND c.stream_id = r.stream_id AND c.launch_ns > r.wait_ns
)
SELECT dst AS id, src AS pred, src_end AS release_ns, 'event' AS edge FROM waiting
UNION ALL
SELECT s.id, r.src, r.src_end, 'sync'
FROM recorded r JOIN _cp_nodes s ON s.run_id = r.run_id AND s.correlation_id = r.correlation_id AND s.kind = 'sync'
WHERE r.name = 'Event Sync' 
UNION ALL
-- a Stream Sync waited for the last activity on its stream to end at or before the call's end
SELECT s.id, d.id, d.end_ns, 'sync'
FROM (SELECT s.*, w.stream_id AS sync_stream FROM _cp_nodes s
      JOIN syncs w ON w.run_id = s.run_id AND w.correlation_id = s.correlation_id AND w.name = 'Stream Sync'
      WHERE s.kind = 'sync') s
ASOF JOIN (SELECT n.*, k.stream_id FROM _cp_nodes n JOIN kernels k ON k.run_id = n.run_id AND k.seq = n.ref_seq
           WHERE n.side = 'device') d
  ON d.run_id = s.run_id AND d.stream_id = s.sync_stream AND d.end_ns <= s.end_ns;

INSERT INTO _cp_waits
-- any other synchronising call: on every stream of the run, the last activity to end at or before the
-- call's end (a cudaDeviceSynchronize waits for them all; the one that ends last binds it)
SELECT s.id, d.id AS pred, d.end_ns AS release_ns, 'sync' AS edge
-- (a blocking copy's own copy is the call's own work, not what it waited for: what ended by the copy's start is)
FROM (SELECT s.*, l.lane AS stream_lane,
          coalesce((SELECT min(c.start_ns) FROM _cp_nodes c WHERE c.run_id = s.run_id AND c.side = 'device'
                    AND c.correlation_id = s.correlation_id), s.end_ns) AS limit_ns
      FROM _cp_nodes s JOIN (SELECT DISTINCT run_id, lane FROM _cp_nodes WHERE side = 'device') l USING (run_id)
      WHERE s.kind = 'sync'
        AND NOT EXISTS (SELECT 1 FROM trace_events w WHERE w.run_id = s.run_id AND w.cat = 'cuda_sync'
                        AND w.correlation_id = s.correlation_id AND w.name IN ('Event Sync', 'Stream Sync')
                        AND w.ph = 'X')
        -- an Ascend event sync waited for an EVENT_RECORD task, when the trace has them (below)
        AND NOT (regexp_matches(s.name, 'aclrtSynchronizeEvent')
                 AND EXISTS (SELECT 1 FROM trace_events r WHERE r.run_id = s.run_id AND r.kind = 'npu_task'
                             AND r.ph = 'X' AND regexp_matches(r.name, '(?i)^event_record$')))) s
ASOF JOIN (SELECT * FROM _cp_nodes WHERE side = 'device') d
  ON d.run_id = s.run_id AND d.lane = s.stream_lane AND d.end_ns <= s.limit_ns;

INSERT INTO _cp_waits
-- a Stream Wait Event that names no record (an Nsight Systems export's synchronisation rows give the waiting
-- stream and an event id, never the record; a Kineto trace older than its record correlation likewise): the
-- event's work is taken to be the last activity launched, on another stream of the device, before the
-- cudaStreamWaitEvent call (a record comes before its wait on the thread, and marks the work launched before
-- it); the waiting work, the first activity on the waiting stream launched after the call, as above
WITH waits AS (
    SELECT t.run_id, t.stream_id, t.device_id, h.start_ns AS wait_ns
    FROM trace_events t
    JOIN host_events h ON h.run_id = t.run_id AND h.correlation_id = t.correlation_id AND launch_call(h.cat)
    WHERE t.run_id IN (SELECT unnest($run_ids)) AND t.cat = 'cuda_sync' AND t.ph = 'X'
      AND t.name = 'Stream Wait Event' AND json_extract(t.extra_args, '$.record_corr') IS NULL
), launched AS (
    SELECT d.run_id, d.id, d.end_ns, l.launch_ns, k.device_id, k.stream_id
    FROM _cp_nodes d JOIN _cp_launch l USING (id) JOIN kernels k ON k.run_id = d.run_id AND k.seq = d.ref_seq
    WHERE d.run_id IN (SELECT run_id FROM waits)
), others AS (
    -- each wait with each other stream of its device
    SELECT w.*, o.stream_id AS other
    FROM waits w JOIN (SELECT DISTINCT run_id, device_id, stream_id FROM launched) o
      ON o.run_id = w.run_id AND o.stream_id <> w.stream_id
     AND (o.device_id = w.device_id OR w.device_id IS NULL)
), source AS (
    -- per wait, of each other stream's last activity launched before the call, the latest launched
    SELECT w.run_id, w.stream_id, w.wait_ns, arg_max(s.id, s.launch_ns) AS src, arg_max(s.end_ns, s.launch_ns) AS src_end
    FROM others w ASOF JOIN launched s ON s.run_id = w.run_id AND s.stream_id = w.other AND s.launch_ns < w.wait_ns
    GROUP BY w.run_id, w.stream_id, w.wait_ns
)
SELECT c.id, s.src AS pred, s.src_end AS release_ns, 'event' AS edge
FROM source s ASOF JOIN launched c ON c.run_id = s.run_id AND c.stream_id = s.stream_id AND c.launch_ns > s.wait_ns;

INSERT INTO _cp_waits
-- Ascend's runtime tasks (trace_view.json, kind npu_task): an EVENT_WAIT on a stream holds it until an
-- EVENT_RECORD of the same event runs on another stream; the trace names no event, so the record is told by
-- time: the last record on another stream of the run that ended while the wait was pending (after the wait
-- began, and no later than the next activity of the waiting stream began), launched before the wait where
-- flows say when each was launched; a wait no record held (it had run already) is paired, where flows say
-- when each was launched, with the last record launched before it on another stream: it bound nothing
-- here, but report what-if replays it (the work before that record, made longer, would hold the wait).
-- That activity waited for the
-- last activity of the record's stream to end by the record's start. An aclrtSynchronizeEvent waited for
-- the last record to end by the call's end, so for that activity too. (The AlexNet capture: a 320.7 µs
-- EVENT_WAIT on stream 4 ends 0.5 µs after an EVENT_RECORD on stream 2.)
WITH tasks AS (
    -- launch_ns: when the host launched the task (its flow's start), where a flow leads to it
    SELECT t.run_id, regexp_matches(t.name, '(?i)^event_wait') AS is_wait,
        coalesce(t.stream_id, TRY_CAST(t.tid AS BIGINT)) AS stream, t.start_ns, t.start_ns + t.dur_ns AS end_ns,
        min(s.start_ns) AS launch_ns
    FROM trace_events t
    LEFT JOIN trace_events s ON s.run_id = t.run_id AND s.correlation_id = t.correlation_id AND s.ph = 's'
                            AND s.cat = 'async_npu'
    WHERE t.run_id IN (SELECT unnest($run_ids)) AND t.kind = 'npu_task' AND t.ph = 'X'
      AND regexp_matches(t.name, '(?i)^event_(record|wait)$')
    GROUP BY ALL
), dev AS (
    SELECT n.run_id, n.id, n.start_ns, n.end_ns, k.stream_id AS stream
    FROM _cp_nodes n JOIN kernels k ON k.run_id = n.run_id AND k.seq = n.ref_seq
    WHERE n.side = 'device' AND n.run_id IN (SELECT run_id FROM tasks)
), waited AS (
    -- each wait with the activity after it on its stream
    SELECT w.run_id, w.stream, w.start_ns, w.launch_ns, c.id AS dst, c.start_ns AS dst_start
    FROM (SELECT * FROM tasks WHERE is_wait) w
    ASOF JOIN dev c ON c.run_id = w.run_id AND c.stream = w.stream AND c.start_ns >= w.start_ns
), released AS (
    SELECT w.run_id, w.dst, r.stream, r.start_ns AS record_ns
    FROM waited w JOIN (SELECT * FROM tasks WHERE NOT is_wait) r
      ON r.run_id = w.run_id AND r.stream <> w.stream AND r.end_ns <= w.dst_start
     -- a record launched after the wait is of a later event
     AND (r.launch_ns IS NULL OR w.launch_ns IS NULL OR r.launch_ns < w.launch_ns)
     -- one that ended before the wait began held nothing; it is the wait's own only as the last one launched
     -- before it (record, then wait, on the host), which flows alone say
     AND (r.end_ns >= w.start_ns OR r.launch_ns IS NOT NULL AND w.launch_ns IS NOT NULL)
    QUALIFY row_number() OVER (PARTITION BY w.run_id, w.dst
                               ORDER BY r.end_ns >= w.start_ns DESC,
                                        CASE WHEN r.end_ns >= w.start_ns THEN r.end_ns ELSE r.launch_ns END DESC,
                                        r.stream) = 1
), synced AS (
    SELECT s.id, r.stream, r.start_ns AS record_ns
    FROM (SELECT * FROM _cp_nodes WHERE kind = 'sync' AND regexp_matches(name, 'aclrtSynchronizeEvent')) s
    ASOF JOIN (SELECT * FROM tasks WHERE NOT is_wait) r ON r.run_id = s.run_id AND r.end_ns <= s.end_ns
)
SELECT r.dst AS id, p.id AS pred, p.end_ns AS release_ns, 'event' AS edge
FROM released r ASOF JOIN dev p ON p.run_id = r.run_id AND p.stream = r.stream AND p.end_ns <= r.record_ns
UNION ALL
SELECT s.id, p.id, p.end_ns, 'sync'
FROM (SELECT s.*, n.run_id FROM synced s JOIN _cp_nodes n USING (id)) s
ASOF JOIN dev p ON p.run_id = s.run_id AND p.stream = s.stream AND p.end_ns <= s.record_ns;

CREATE OR REPLACE TEMP TABLE _cp_cands AS
SELECT id, lane_pred AS pred, lane_release AS release_ns, CASE side WHEN 'device' THEN 'stream' ELSE 'thread' END AS edge,
    0 AS pref
FROM _cp_nodes WHERE lane_pred IS NOT NULL
UNION ALL
SELECT id, pred, release_ns, edge, 2 AS pref FROM _cp_launch
UNION ALL
SELECT id, pred, release_ns, edge, 1 AS pref FROM _cp_waits;

CREATE OR REPLACE TEMP TABLE _cp_nodes AS
SELECT n.run_id, n.id, n.side, n.kind, n.lane, n.ref_seq, n.name, n.start_ns, n.end_ns, l.pred AS launch
FROM _cp_nodes n LEFT JOIN (SELECT * FROM _cp_launch WHERE edge = 'launch') l USING (id)
ORDER BY n.id;
DROP TABLE _cp_launch;
DROP TABLE _cp_waits;
DROP TABLE _cp_flows;
