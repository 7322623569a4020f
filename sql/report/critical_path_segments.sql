-- Report `critical-path`: the walked path (_cp_walk, made by engine/reports/critical_path.py from
-- _cp_nodes) as segments, each tied to what tracedb knows of its node.
-- A host_gap (a host call's thread between the call before it and this one) is split by what the thread
-- did meanwhile: where a cpu_op, python_function or user annotation (an NVTX range in an nsys export) of
-- the same thread covers it, host_op (the host's own work: the framework's ops, Python and the code inside
-- a range it opened, between two launches); elsewhere host_gap (the thread in no op). A step covers
-- nothing: ProfilerStep#3 and any NAME#QUALIFIER range (Optimizer.step#AdamW.step; Ascend's trace_view.json
-- writes them as cpu_ops), a serving step annotation (serving_step in macros.sql).
-- A device_gap (a stream idle after the kernel before it) is sync_wait where an Ascend EVENT_WAIT task held
-- that stream: it waited for an EVENT_RECORD on another stream whose work the path does not hold (a stream
-- whose activity the trace does not list; a collective's stream is listed: ingest_chrome_tasks.sql).
-- Each segment names the node it belongs to: a device segment (the node's own or the gap before it) its
-- kernel, pass and layer (_assigned, when the run is segmented), stage and launching module; a host segment
-- its call and the pass, layer, stage and module of the first kernel that call launched.
-- Times are on the job's clock (a node's own plus its off_ns: 0 for a run's own path); the host gaps are
-- split on their thread's own clock.
-- Inputs: _cp_walk (path, step, pos, node, start_ns, end_ns, category, window_start_ns), _cp_nodes,
--   host_events, kernels, trace_events (EVENT_WAIT tasks), _assigned, _cp_stages and _cp_modules (run_id, seq
--   and a kernel's stage or launching module; engine/reports/critical_path.py, empty unless asked for).
-- Parameters: none.
-- Output: TEMP _cp_path, one row per segment, in time order per path:
--   path BIGINT: the path: its run's id, or 0 for the one path of report critical-path --job
--   run_id INTEGER: the run of the segment's node
--   step BIGINT: the window's step; NULL: the whole trace
--   pos BIGINT: the segment's position on the path (of its step, when one run's steps are walked apart: report
--     advise), from 0 at the window's start
--   start_ns BIGINT: start, ns, on the path's clock
--   end_ns BIGINT: end, ns, on the path's clock
--   window_start_ns BIGINT: the window's start, on the path's clock
--   category VARCHAR: device_compute | device_comm | device_memcpy | host_op | sync_wait | launch_latency |
--     device_gap | host_gap | comm_wait (a job's rank on its own: its collective before the last peer was in)
--   segment VARCHAR: the node's kind (kernel, comm, memcpy, memset, launch, sync) for its own stretch,
--     gap for the time before it (and a collective's comm_wait)
--   kernel VARCHAR: the device node's name (its own stretch or the gap before it); NULL on the host
--   api VARCHAR: the host call's name (launch or sync); NULL on the device
--   lane VARCHAR: device:DEVICE:STREAM or host:PID:TID
--   pass BIGINT: the pass of the node's kernel (a host call: of the first kernel it launched); NULL unsegmented
--   layer BIGINT: its layer
--   unit VARCHAR: prologue | layer | epilogue; NULL: no pass
--   stage VARCHAR: the stage of the node's kernel in its layer (attention, ffn, router, ...); NULL: none found
--   module VARCHAR: the nn.Module (else annotation, op) that launched the node's kernel, as report modules names
--     it; NULL: not asked for
CREATE OR REPLACE TEMP TABLE _cp_path AS
WITH walked AS (
    SELECT w.*, n.run_id, n.off_ns, n.side, n.kind, n.lane, n.name, n.ref_seq
    FROM _cp_walk w JOIN _cp_nodes n ON n.id = w.node
), gaps AS (
    -- on the thread's own clock
    SELECT w.path, w.step, w.run_id, w.node, w.start_ns - w.off_ns AS s, w.end_ns - w.off_ns AS e, h.pid, h.tid
    FROM walked w JOIN host_events h ON h.run_id = w.run_id AND h.seq = w.ref_seq
    WHERE w.category = 'host_gap'
), ops AS (
    -- the ops of the gaps' threads, listed once per 1 ms bucket they cover so that gaps meet them by hash
    -- (an interval join over a 1.2 M-event trace's ops took 1.75 s, this 0.1 s)
    SELECT h.run_id, h.pid, h.tid, h.start_ns AS os, h.start_ns + h.dur_ns AS oe,
        unnest(range(h.start_ns // 1000000, (h.start_ns + greatest(h.dur_ns, 1) - 1) // 1000000 + 1)) AS bucket
    FROM host_events h
    WHERE h.run_id IN (SELECT run_id FROM gaps) AND h.cat IN ('cpu_op', 'python_function', 'user_annotation')
      AND (h.pid, h.tid) IN (SELECT pid, tid FROM gaps)
      -- a step, not work: ProfilerStep#N and record_function's NAME#QUALIFIER ranges (Ascend's
      -- trace_view.json writes them as cpu_ops), a serving framework's step annotation
      AND NOT contains(h.name, '#') AND NOT serving_step(h.name)
), covered AS (
    -- the thread's ops over each gap, clipped to it; a pair met in the first bucket both cover
    SELECT g.path, g.step, g.node, g.s, g.e, greatest(h.os, g.s) AS cs, least(h.oe, g.e) AS ce
    FROM (SELECT *, unnest(range(s // 1000000, (e - 1) // 1000000 + 1)) AS bucket FROM gaps) g
    JOIN ops h ON h.run_id = g.run_id AND h.pid IS NOT DISTINCT FROM g.pid AND h.tid IS NOT DISTINCT FROM g.tid
     AND h.bucket = g.bucket AND g.bucket = greatest(g.s, h.os) // 1000000 AND h.os < g.e AND h.oe > g.s
), islands AS (
    SELECT path, step, node, s, e, cs, ce,
        sum(CASE WHEN cs > prev_end THEN 1 ELSE 0 END) OVER (PARTITION BY path, step, node ORDER BY cs, ce) AS island
    FROM (SELECT *, max(ce) OVER (PARTITION BY path, step, node ORDER BY cs, ce
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
          FROM covered)
), busy AS (
    SELECT path, step, node, any_value(s) AS s, any_value(e) AS e, min(cs) AS bs, max(ce) AS be
    FROM islands GROUP BY path, step, node, island
), pieces AS (
    -- the busy islands, and the idle stretches between them and the gap's ends
    SELECT path, step, node, bs AS start_ns, be AS end_ns, 'host_op' AS category FROM busy
    UNION ALL
    SELECT path, step, node, coalesce(lag(be) OVER (PARTITION BY path, step, node ORDER BY bs), s) AS start_ns,
        bs AS end_ns, 'host_gap' AS category
    FROM busy
    UNION ALL
    SELECT path, step, node, max(be) AS start_ns, any_value(e) AS end_ns, 'host_gap' AS category
    FROM busy GROUP BY path, step, node
    UNION ALL
    SELECT path, step, node, s AS start_ns, e AS end_ns, 'host_gap' AS category
    FROM gaps g WHERE NOT EXISTS (SELECT 1 FROM busy b WHERE b.path = g.path AND b.step IS NOT DISTINCT FROM g.step
                                                          AND b.node = g.node)
), held AS (
    -- the Ascend EVENT_WAIT tasks (kind npu_task) on a device gap's stream within the gap, clipped to it; a
    -- stream runs one task at a time, so they do not overlap
    SELECT w.path, w.step, w.node, w.start_ns - w.off_ns AS s, w.end_ns - w.off_ns AS e,
        greatest(t.start_ns, w.start_ns - w.off_ns) AS cs, least(t.start_ns + t.dur_ns, w.end_ns - w.off_ns) AS ce
    FROM walked w
    JOIN kernels k ON k.run_id = w.run_id AND k.seq = w.ref_seq
    JOIN trace_events t ON t.run_id = w.run_id AND t.kind = 'npu_task' AND t.ph = 'X'
     AND coalesce(t.stream_id, TRY_CAST(t.tid AS BIGINT)) = k.stream_id
     AND t.start_ns < w.end_ns - w.off_ns AND t.start_ns + t.dur_ns > w.start_ns - w.off_ns
     AND regexp_matches(t.name, '(?i)^event_wait$')
    WHERE w.category = 'device_gap' AND w.side = 'device'
), held_pieces AS (
    SELECT path, step, node, cs AS start_ns, ce AS end_ns, 'sync_wait' AS category FROM held
    UNION ALL
    SELECT path, step, node, coalesce(lag(ce) OVER (PARTITION BY path, step, node ORDER BY cs), s), cs, 'device_gap'
    FROM held
    UNION ALL
    SELECT path, step, node, max(ce), any_value(e), 'device_gap' FROM held GROUP BY path, step, node
), split AS (
    SELECT w.path, w.step, w.node, p.start_ns + w.off_ns AS start_ns, p.end_ns + w.off_ns AS end_ns, p.category,
        w.window_start_ns
    FROM walked w JOIN pieces p ON p.path = w.path AND p.step IS NOT DISTINCT FROM w.step AND p.node = w.node
                                 AND w.category = 'host_gap'
    WHERE p.end_ns > p.start_ns
    UNION ALL
    SELECT w.path, w.step, w.node, p.start_ns + w.off_ns, p.end_ns + w.off_ns, p.category, w.window_start_ns
    FROM walked w JOIN held_pieces p ON p.path = w.path AND p.step IS NOT DISTINCT FROM w.step AND p.node = w.node
                                      AND w.category = 'device_gap'
    WHERE p.end_ns > p.start_ns
    UNION ALL
    SELECT path, step, node, start_ns, end_ns, category, window_start_ns FROM walked w
    WHERE category <> 'host_gap'
      AND NOT (category = 'device_gap' AND EXISTS (SELECT 1 FROM held h WHERE h.path = w.path AND h.node = w.node
                                                   AND h.step IS NOT DISTINCT FROM w.step))
), device_facts AS (
    SELECT d.id, d.launch, d.start_ns, a.pass, a.layer, a.unit, st.stage, m.module
    FROM _cp_nodes d
    LEFT JOIN _assigned a ON a.run_id = d.run_id AND a.seq = d.ref_seq
    LEFT JOIN _cp_stages st ON st.run_id = d.run_id AND st.seq = d.ref_seq
    LEFT JOIN _cp_modules m ON m.run_id = d.run_id AND m.seq = d.ref_seq
    WHERE d.side = 'device'
), node_unit AS (
    -- a device node's pass, layer, stage and module, and a launch call's: those of the first kernel it launched
    SELECT id, pass, layer, unit, stage, module FROM device_facts
    UNION ALL
    SELECT launch AS id, arg_min(pass, start_ns), arg_min(layer, start_ns), arg_min(unit, start_ns),
        arg_min(stage, start_ns), arg_min(module, start_ns)
    FROM device_facts WHERE launch IS NOT NULL
    GROUP BY launch
)
SELECT s.path, n.run_id, s.step,
    row_number() OVER (PARTITION BY s.path, s.step ORDER BY s.start_ns, s.end_ns) - 1 AS pos,
    s.start_ns, s.end_ns, s.window_start_ns, s.category,
    CASE WHEN s.category IN ('launch_latency', 'device_gap', 'host_gap', 'comm_wait') OR s.end_ns <= n.start_ns + n.off_ns
         THEN 'gap' ELSE n.kind END AS segment,
    CASE WHEN n.side = 'device' THEN n.name END AS kernel,
    CASE WHEN n.side = 'host' THEN n.name END AS api,
    n.lane, u.pass, u.layer, u.unit, u.stage, u.module
FROM split s JOIN _cp_nodes n ON n.id = s.node LEFT JOIN node_unit u ON u.id = s.node;
