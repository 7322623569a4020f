-- Graph replays matched to their capture, so that attribute_modules.sql gives each replayed kernel the
-- frames of the launch call that captured it. A CUDA/HIP graph replay runs every kernel of the graph from
-- one graph launch call (cudaGraphLaunch, hipGraphLaunch) whose correlation id all of them share; the
-- launch calls that captured them lie in another run, the graph capture trace of the same process. The two
-- are paired by tags: the replay's `capture` equals the capture run's `capture_of` (tracedb ingest REPLAY
-- --capture CAPTURE sets both; docs/segmentation.md).
-- 1. replays: each graph launch call of the runs and the kernels with its correlation id, in start order.
-- 2. captured graphs: in each capture run, the kernel launch calls of a thread between a stream-capture
--    begin call and the next capture call of that thread (the whole run when it has no begin call) that ran
--    no kernel of the run: a captured launch runs only when its graph does. Their kernel is args.kernel,
--    which a capture ingest keeps in trace_events.extra_args (ROCm's runtime writes it; CUDA's does not).
-- 3. a replay matches a captured graph when the graph launched each kernel the replay ran as many times.
--    Launches of kernels the replay never ran are set aside, at most 1 in 100 of the graph's launches (one
--    in a graph of fewer than 200): the FLUX.1 capture launched one GEMM of 1,567 that its graph does not
--    hold. A graph whose launches carry no kernel name matches a replay of as many kernels, by position.
--    The graphs that set aside fewest, of the first capture run, are candidates; graphs of the same kernels
--    (vLLM's piecewise graphs 2-24, one per layer) are taken in capture order: the j-th replay of those
--    kernels takes the (j mod n)-th of the n graphs, so the 23 per-layer replays of each pass take the
--    per-layer graphs in layer order.
-- 4. kernels: the k-th kernel of each name of a replay pairs with the graph's k-th launch of that name
--    (the k-th kernel with the k-th launch in a graph without names), so kernels of parallel streams that
--    start in another order than they were launched still pair. Grid and block, when both sides have
--    them, must agree, else the replay is not matched.
-- Inputs: runs (tags), kernels, host_events, trace_events (a capture run's launch calls: extra_args, grid,
--   block).
-- Parameters:
--   $run_ids INTEGER[]: the replay runs
-- Output: TEMP _graph_replays, one row per graph launch of the runs that have a paired capture:
--   run_id INTEGER: the replay run
--   launch_seq BIGINT: the graph launch call (host_events.seq)
--   launch_ns BIGINT: its start
--   kernels BIGINT: the kernels it ran
--   capture_run_id INTEGER: the capture run of the matched graph; NULL: no captured graph matches
--   capture_graph BIGINT: that graph, numbered from 1 in capture order within its run
--   set_aside BIGINT: launches of the graph whose kernel the replay did not run
--   named BOOLEAN: the graph's launches carry kernel names (else matched by count and position)
--   geometry BIGINT: paired kernels whose grid or block differ from their launch's (the replay is then not
--     matched)
--   matched BOOLEAN: a graph matched and every kernel paired
--   nearest BIGINT: not matched: the launches of the captured graph nearest in count; NULL: the capture
--     holds no graph
--   differs VARCHAR: not matched, and a captured graph has as many launches: the replay's first kernel
--     that it launched a different number of times
-- Output: TEMP _graph_launches, one row per kernel of a matched replay:
--   run_id INTEGER: the replay run
--   seq BIGINT: the kernel (kernels.seq)
--   host_run_id INTEGER: the capture run
--   pid VARCHAR: the capturing launch call's process
--   tid VARCHAR: its thread
--   t BIGINT: its start, in the capture run's time
-- TEMP _graph_pairs, _graph_kernels and _graph_captured are scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _graph_pairs AS
SELECT r.run_id, c.run_id AS capture_run_id
FROM runs r JOIN runs c ON c.tags['capture_of'] = r.tags['capture'] AND c.run_id <> r.run_id
WHERE r.run_id IN (SELECT unnest($run_ids::INTEGER[]));

CREATE OR REPLACE TEMP TABLE _graph_kernels AS
WITH replays AS (
    SELECT run_id, seq AS launch_seq, start_ns AS launch_ns, correlation_id
    FROM host_events
    WHERE run_id IN (SELECT run_id FROM _graph_pairs) AND launch_call(cat) AND regexp_matches(name, '(?i)graphlaunch')
      AND correlation_id IS NOT NULL
)
SELECT p.run_id, p.launch_seq, p.launch_ns, k.seq, k.name, k.grid, k.block,
    row_number() OVER (PARTITION BY p.run_id, p.launch_seq ORDER BY k.start_ns, k.seq) AS pos,
    row_number() OVER (PARTITION BY p.run_id, p.launch_seq, k.name ORDER BY k.start_ns, k.seq) AS nth
FROM replays p
JOIN kernels k ON k.run_id = p.run_id AND k.correlation_id = p.correlation_id
WHERE k.run_id IN (SELECT run_id FROM _graph_pairs) AND k.kind = 'kernel';

CREATE OR REPLACE TEMP TABLE _graph_captured AS
WITH caps AS (
    SELECT DISTINCT capture_run_id AS run_id FROM _graph_pairs
), calls AS (
    SELECT run_id, pid, tid, start_ns, dur_ns, name, correlation_id, extra_args, grid, block, seq
    FROM trace_events
    WHERE run_id IN (SELECT run_id FROM caps) AND ph = 'X' AND kind IS NULL AND launch_call(cat)
), marks AS (
    SELECT run_id, pid, tid, start_ns, start_ns + dur_ns AS end_ns, contains(name, 'Begin') AS is_begin
    FROM calls WHERE regexp_matches(name, 'Stream(Begin|End)Capture')
), windows AS (
    SELECT run_id, pid, tid, end_ns AS w_start, w_end,
        row_number() OVER (PARTITION BY run_id ORDER BY start_ns) AS graph
    FROM (SELECT *, lead(start_ns) OVER (PARTITION BY run_id, pid, tid ORDER BY start_ns) AS w_end FROM marks)
    WHERE is_begin
), launches AS (
    SELECT c.run_id, c.seq, c.pid, c.tid, c.start_ns, c.extra_args ->> 'kernel' AS name, c.grid, c.block
    FROM calls c
    WHERE regexp_matches(c.name, '(?i)launch') AND NOT regexp_matches(c.name, '(?i)graphlaunch|hostfunc')
      AND NOT EXISTS (SELECT 1 FROM trace_events k WHERE k.run_id = c.run_id AND k.correlation_id = c.correlation_id
                                                    AND k.kind IS NOT NULL)
), placed AS (
    SELECT l.*, w.graph FROM launches l
    JOIN windows w ON w.run_id = l.run_id AND w.pid IS NOT DISTINCT FROM l.pid AND w.tid IS NOT DISTINCT FROM l.tid
     AND l.start_ns >= w.w_start AND (w.w_end IS NULL OR l.start_ns < w.w_end)
    UNION ALL
    -- a capture run without begin calls (its trace started after them): one graph, every captured launch
    SELECT l.*, 1 FROM launches l WHERE l.run_id NOT IN (SELECT run_id FROM windows)
)
SELECT run_id AS capture_run_id, graph, seq, pid, tid, start_ns AS t, name, grid, block,
    row_number() OVER (PARTITION BY run_id, graph ORDER BY start_ns, seq) AS pos,
    row_number() OVER (PARTITION BY run_id, graph, name ORDER BY start_ns, seq) AS nth
FROM placed;

CREATE OR REPLACE TEMP TABLE _graph_replays AS
WITH rn AS (
    SELECT run_id, launch_seq, name, count(*) AS cnt FROM _graph_kernels GROUP BY ALL
), replays AS (
    -- the signature: the replay's kernels and their counts, in name order
    SELECT run_id, launch_seq, CAST(sum(cnt) AS BIGINT) AS n, count(*) AS names,
        md5(string_agg(name || chr(31) || cnt, chr(30) ORDER BY name)) AS sig
    FROM rn GROUP BY ALL
), reps AS (
    -- one replay of each signature: the candidates are the same for all of them
    SELECT run_id, sig, n, names, min(launch_seq) AS launch_seq FROM replays GROUP BY ALL
), cn AS (
    SELECT capture_run_id, graph, name, count(*) AS cnt FROM _graph_captured GROUP BY ALL
), ct AS (
    SELECT capture_run_id, graph, count(*) AS n, count(name) = count(*) AS named FROM _graph_captured GROUP BY ALL
), cand AS (
    SELECT s.run_id, s.sig, c.capture_run_id, c.graph, ct.n - s.n AS set_aside, true AS named
    FROM reps s
    JOIN rn ON rn.run_id = s.run_id AND rn.launch_seq = s.launch_seq
    JOIN _graph_pairs p ON p.run_id = s.run_id
    JOIN cn c ON c.capture_run_id = p.capture_run_id AND c.name = rn.name AND c.cnt = rn.cnt
    JOIN ct ON ct.capture_run_id = c.capture_run_id AND ct.graph = c.graph AND ct.named
    GROUP BY s.run_id, s.sig, s.n, s.names, c.capture_run_id, c.graph, ct.n
    HAVING count(*) = s.names AND ct.n - s.n <= greatest(1, ct.n // 100)
    UNION ALL
    SELECT s.run_id, s.sig, ct.capture_run_id, ct.graph, 0, false
    FROM reps s JOIN _graph_pairs p ON p.run_id = s.run_id
    JOIN ct ON ct.capture_run_id = p.capture_run_id AND NOT ct.named AND ct.n = s.n
), chosen AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, sig ORDER BY graph) - 1 AS i,
        count(*) OVER (PARTITION BY run_id, sig) AS m
    FROM (SELECT *, rank() OVER (PARTITION BY run_id, sig ORDER BY set_aside, capture_run_id) AS rk FROM cand)
    WHERE rk = 1
), ordered AS (
    SELECT r.*, k.launch_ns,
        row_number() OVER (PARTITION BY r.run_id, r.sig ORDER BY k.launch_ns, r.launch_seq) - 1 AS j
    FROM replays r
    JOIN (SELECT DISTINCT run_id, launch_seq, launch_ns FROM _graph_kernels) k USING (run_id, launch_seq)
), nearest AS (
    -- a replay no graph matches: the captured graph nearest in count, and its first kernel counted otherwise
    SELECT s.run_id, s.sig, arg_min(ct.n, (abs(ct.n - s.n), ct.capture_run_id, ct.graph)) AS nearest,
        arg_min(ct.capture_run_id, (abs(ct.n - s.n), ct.capture_run_id, ct.graph)) AS near_run,
        arg_min(ct.graph, (abs(ct.n - s.n), ct.capture_run_id, ct.graph)) AS near_graph
    FROM reps s JOIN _graph_pairs p ON p.run_id = s.run_id JOIN ct ON ct.capture_run_id = p.capture_run_id
    WHERE (s.run_id, s.sig) NOT IN (SELECT run_id, sig FROM chosen)
    GROUP BY ALL
), differs AS (
    SELECT n.run_id, n.sig, arg_min(k.name, k.pos) AS differs
    FROM nearest n
    JOIN reps s ON s.run_id = n.run_id AND s.sig = n.sig AND s.n = n.nearest
    JOIN _graph_kernels k ON k.run_id = s.run_id AND k.launch_seq = s.launch_seq
    JOIN rn ON rn.run_id = k.run_id AND rn.launch_seq = k.launch_seq AND rn.name = k.name
    LEFT JOIN cn ON cn.capture_run_id = n.near_run AND cn.graph = n.near_graph AND cn.name = k.name
    WHERE cn.cnt IS DISTINCT FROM rn.cnt
    GROUP BY ALL
)
SELECT o.run_id, o.launch_seq, o.launch_ns, o.n AS kernels, c.capture_run_id, c.graph AS capture_graph,
    c.set_aside, c.named, CAST(0 AS BIGINT) AS geometry, c.graph IS NOT NULL AS matched, n.nearest, d.differs
FROM ordered o
LEFT JOIN chosen c ON c.run_id = o.run_id AND c.sig = o.sig AND c.i = o.j % c.m
LEFT JOIN nearest n ON n.run_id = o.run_id AND n.sig = o.sig
LEFT JOIN differs d ON d.run_id = o.run_id AND d.sig = o.sig;

CREATE OR REPLACE TEMP TABLE _graph_launches AS
WITH paired AS (
    SELECT k.run_id, k.seq, k.launch_seq, c.capture_run_id, c.pid, c.tid, c.t,
        k.grid IS NOT NULL AND c.grid IS NOT NULL AND (k.grid <> c.grid OR k.block IS DISTINCT FROM c.block) AS differ
    FROM _graph_replays r
    JOIN _graph_kernels k ON k.run_id = r.run_id AND k.launch_seq = r.launch_seq
    JOIN _graph_captured c ON c.capture_run_id = r.capture_run_id AND c.graph = r.capture_graph
     AND c.name = k.name AND c.nth = k.nth
    WHERE r.matched AND r.named
    UNION ALL
    SELECT k.run_id, k.seq, k.launch_seq, c.capture_run_id, c.pid, c.tid, c.t,
        k.grid IS NOT NULL AND c.grid IS NOT NULL AND (k.grid <> c.grid OR k.block IS DISTINCT FROM c.block)
    FROM _graph_replays r
    JOIN _graph_kernels k ON k.run_id = r.run_id AND k.launch_seq = r.launch_seq
    JOIN _graph_captured c ON c.capture_run_id = r.capture_run_id AND c.graph = r.capture_graph AND c.pos = k.pos
    WHERE r.matched AND NOT r.named
)
SELECT * FROM paired;

-- a replay with a kernel whose grid or block differ from its launch's is not matched: its kernels keep
-- the graph launch's frames
UPDATE _graph_replays r SET geometry = g.n, matched = false
FROM (SELECT run_id, launch_seq, count(*) AS n FROM _graph_launches WHERE differ GROUP BY ALL) g
WHERE r.run_id = g.run_id AND r.launch_seq = g.launch_seq;

CREATE OR REPLACE TEMP TABLE _graph_launches AS
SELECT l.run_id, l.seq, l.capture_run_id AS host_run_id, l.pid, l.tid, l.t
FROM _graph_launches l
JOIN _graph_replays r ON r.run_id = l.run_id AND r.launch_seq = l.launch_seq
WHERE r.matched;

DROP TABLE _graph_pairs;
DROP TABLE _graph_kernels;
DROP TABLE _graph_captured;
