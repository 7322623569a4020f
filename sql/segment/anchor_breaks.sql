-- Breaks the trace itself puts between two consecutive anchors of a stream, whatever their gap:
-- * a step boundary: the two anchors lie in different steps (Step Id; the ProfilerStep#N, or the serving
--   step annotation, around the anchor's launch), since a step holds its passes; or in different replays
--   of a CUDA/HIP graph (the cudaGraphLaunch / hipGraphLaunch whose correlation id the graph's kernels
--   share) that each hold two anchors or more: such a graph is a whole forward pass; or where the anchor's
--   kind of step changes ($kind_names, $kind_groups: prefill and decode kernels take turns pass by pass);
-- * work of another phase between them (a backward pass and the optimizer step between two forward
--   passes; a forward micro-batch between two backward ones in 1F1B), a pipeline send/receive (a
--   pipeline stage's micro-batches, back to back within one phase), or a forward's embedding lookup or
--   sampling (the ends of a forward, as Ascend's msmodeling inspector splits forwards);
-- * but not when such work lies between most consecutive anchors: then the schedule interleaves the
--   phases layer by layer (DualPipe overlaps a forward and a backward chunk), and those gaps are inside
--   one pass.
-- * a new call of the model's layers: two anchors launched inside the nn.Module frames of the model's
--   repeated block class (anchor_blocks.sql) lie in different forward passes when the later one's block
--   instance is not past the earlier one's (TransformerBlock_0 again after TransformerBlock_35), counted per
--   class (a hybrid model may name its attention and its Mamba layers apart); and the gap between two
--   anchors of one block call, or of consecutive blocks of one class in one walk, is never a pass break
--   (joined), however long.
-- Also marks the anchors after optimizer work: they start a new training step.
-- Inputs: _anchors (segment_anchors.sql or anchor_candidates.sql, with src_run, the run the anchor's
--   kernel belongs to), _phase (kernel_phases.sql), kernels, host_events, _kernel_blocks (anchor_blocks.sql;
--   empty or missing: no module tree).
-- Parameters:
--   $phase VARCHAR: the phase of the stream (forward | backward)
--   $p2p_names VARCHAR[]: the runs' kernel names of pipeline sends/receives
--   $boundary_names VARCHAR[]: the runs' kernel names of a forward's embedding and sampling kernels
--     (tracedb.engine.segmentation.phases: FORWARD_BOUNDARY); like the other marks, they break only where
--     they lie between fewer than half the anchors, judged apart from them
--   $kind_names VARCHAR[]: anchor names whose kind of step is known (tracedb.engine.segmentation.anchors:
--     a model's prefill and decode kernels take turns pass by pass); empty: none
--   $kind_groups INTEGER[]: the kind of each of $kind_names: a change of kind between two anchors (the names
--     without one skipped) is a pass break
-- Output: TEMP _anchors, the same rows with two columns added:
--   run_id INTEGER: as before (the run, or a candidate's index)
--   seq BIGINT: as before
--   start_ns BIGINT: as before
--   end_ns BIGINT: as before
--   idx BIGINT: as before
--   src_run INTEGER: as before
--   after_optimizer BOOLEAN: optimizer work lies between the previous anchor and this one
--   module_break BOOLEAN: the module tree starts a new walk through the model's blocks at this anchor
--   joined BOOLEAN: this anchor and the previous one lie in one walk through the model's blocks: the gap
--     between them is inside a pass
--   step_break BOOLEAN: this anchor lies in another step, or another whole-pass graph replay, than the previous one
--   replay_break BOOLEAN: step_break for the graph replay alone (no step annotation or Step Id differs)
--   kind_break BOOLEAN: step_break for a change of the anchors' kind of step alone
--   forced BOOLEAN: a pass starts at this anchor, whatever the gap before it (step_break, module_break, or
--     other work)
--   step_ns BIGINT: the start of the step annotation around the anchor's launch (the serving step's, else
--     the ProfilerStep#N's); NULL in none. Names whose anchors share one are in one step
--     (anchor_candidate_split.sql)
-- TEMP _break_marks, _anchor_steps and _anchor_walks are scratch, dropped at the end.
CREATE TEMP TABLE IF NOT EXISTS _kernel_blocks (run_id INTEGER, seq BIGINT, framed BOOLEAN, cls VARCHAR, inst VARCHAR,
    inst_no BIGINT, call_ns BIGINT);

CREATE OR REPLACE TEMP TABLE _anchor_walks AS
WITH blocks AS (
    SELECT a.run_id, a.idx, b.cls, b.inst, b.inst_no, b.call_ns
    FROM _anchors a JOIN _kernel_blocks b ON b.run_id = a.src_run AND b.seq = a.seq
    WHERE b.cls IS NOT NULL
), restarts AS (
    -- another call of a block, whose instance is not past the previous anchor's of its class
    SELECT *, coalesce(call_ns <> lag(call_ns) OVER w
                       AND (inst_no <= lag(inst_no) OVER w OR inst = lag(inst) OVER w), false) AS restart
    FROM blocks WINDOW w AS (PARTITION BY run_id, cls ORDER BY idx)
)
SELECT run_id, idx, cls, inst_no, call_ns, sum(restart::INTEGER) OVER (PARTITION BY run_id, cls ORDER BY idx) AS walk
FROM restarts;

CREATE OR REPLACE TEMP TABLE _break_marks AS
WITH runs AS (
    SELECT DISTINCT src_run AS run_id FROM _anchors
), marks AS (
    SELECT run_id, start_ns, phase = 'optimizer' AS opt, false AS bound FROM _phase
    WHERE phase <> $phase AND run_id IN (SELECT run_id FROM runs)
    UNION ALL
    SELECT k.run_id, k.start_ns, false, false FROM kernels k
    WHERE k.run_id IN (SELECT run_id FROM runs) AND k.name IN (SELECT unnest($p2p_names))
    UNION ALL
    SELECT k.run_id, k.start_ns, false, true FROM kernels k
    WHERE k.run_id IN (SELECT run_id FROM runs) AND k.name IN (SELECT unnest($boundary_names))
)
SELECT run_id, start_ns, count(*) FILTER (WHERE NOT bound) OVER w AS n, count(*) FILTER (WHERE opt) OVER w AS n_opt,
    count(*) FILTER (WHERE bound) OVER w AS n_bound
FROM marks
WINDOW w AS (PARTITION BY run_id ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE OR REPLACE TEMP TABLE _anchor_steps AS
WITH anchored AS (
    SELECT a.run_id, a.idx, a.src_run, k.step_id, k.name, k.correlation_id
    FROM _anchors a JOIN kernels k ON k.run_id = a.src_run AND k.seq = a.seq
), anchor_keys AS (
    SELECT src_run AS run_id, correlation_id FROM anchored
), launched AS (
    SELECT a.run_id, a.idx, a.src_run, a.step_id, l.call_ns AS t,
        coalesce(contains(lower(l.api), 'graphlaunch'), false) AS graph,
        $kind_groups[list_position($kind_names, a.name)] AS kind_name
    FROM anchored a LEFT JOIN launches_of('anchor_keys') l ON l.run_id = a.src_run AND l.correlation_id = a.correlation_id
), replays AS (
    -- a graph replay that holds two anchors or more holds whole passes (vLLM FULL, SGLang decode, a
    -- compiled diffusion transformer: 57 blocks per replay); one with at most one (vLLM PIECEWISE: 25
    -- graphs a pass, attention eager between them) is a piece of a pass and breaks nothing
    SELECT run_id, t FROM launched WHERE graph GROUP BY run_id, t HAVING count(*) >= 2
), marks AS (
    SELECT run_id, start_ns, start_ns + dur_ns AS end_ns, starts_with(name, 'ProfilerStep#') AS profiler_step
    FROM host_events
    WHERE run_id IN (SELECT DISTINCT src_run FROM _anchors) AND cat IN ('user_annotation', 'cpu_op')
      AND step_mark(name)
), in_profiler_step AS (
    SELECT l.*, CASE WHEN l.t < m.end_ns THEN m.start_ns END AS ps
    FROM launched l ASOF LEFT JOIN (SELECT * FROM marks WHERE profiler_step) m ON m.run_id = l.src_run AND l.t >= m.start_ns
)
-- the step of each anchor: its Step Id and the start of the innermost ProfilerStep#N and serving step
-- annotation around its launch
SELECT l.run_id, l.idx, l.step_id, l.ps, CASE WHEN l.t < m.end_ns THEN m.start_ns END AS sv, l.kind_name,
    CASE WHEN l.graph AND EXISTS (SELECT 1 FROM replays r WHERE r.run_id = l.run_id AND r.t = l.t) THEN l.t END AS gr
FROM in_profiler_step l ASOF LEFT JOIN (SELECT * FROM marks WHERE NOT profiler_step) m
    ON m.run_id = l.src_run AND l.t >= m.start_ns;

CREATE OR REPLACE TEMP TABLE _anchors AS
WITH counted AS (
    SELECT a.*, coalesce(m.n, 0) AS n_before, coalesce(m.n_opt, 0) AS opt_before, coalesce(m.n_bound, 0) AS bound_before,
        s.step_id AS s_id, s.ps, s.sv, s.gr, s.kind_name, wk.walk, wk.cls AS walk_cls, wk.inst_no, wk.call_ns AS walk_call
    FROM _anchors a ASOF LEFT JOIN _break_marks m ON m.run_id = a.src_run AND a.start_ns > m.start_ns
    JOIN _anchor_steps s ON s.run_id = a.run_id AND s.idx = a.idx
    LEFT JOIN _anchor_walks wk ON wk.run_id = a.run_id AND wk.idx = a.idx
), flagged AS (
    SELECT *, coalesce(n_before > lag(n_before) OVER w, false) AS marked,
        coalesce(bound_before > lag(bound_before) OVER w, false) AS bounded,
        coalesce(opt_before > lag(opt_before) OVER w, false) AS after_optimizer,
        idx > 0 AND (s_id IS DISTINCT FROM lag(s_id) OVER w OR ps IS DISTINCT FROM lag(ps) OVER w
                     OR sv IS DISTINCT FROM lag(sv) OVER w) AS annotated_break,
        idx > 0 AND gr IS DISTINCT FROM lag(gr) OVER w AS replay_break,
        -- a walk further than every walk before it (walks are counted per block class)
        coalesce(walk > max(walk) OVER (PARTITION BY run_id ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                 false) AS module_break,
        -- one walk: the same class, and the same block call or the next instance (a hybrid model's layers of
        -- two classes, or another stack run before the model, an encoder, are left to the gaps)
        coalesce(walk = lag(walk) OVER w AND walk_cls = lag(walk_cls) OVER w
                 AND (walk_call = lag(walk_call) OVER w OR inst_no = lag(inst_no) OVER w + 1), false) AS joined
    FROM counted
    WINDOW w AS (PARTITION BY run_id ORDER BY idx)
), stepped AS (
    -- sg: the steps (and whole-pass replays) marked so far
    SELECT *, sum((annotated_break OR replay_break)::INTEGER) OVER (PARTITION BY run_id ORDER BY idx) AS sg
    FROM flagged
), kinded AS (
    -- against the last anchor of a kind before it, in the same marked step: a hybrid model's full-attention
    -- anchors, in the layers of both kinds, have none (kind_name: the kind's number), and a step that starts
    -- with layers of no kind (linear attention) has its break at its mark already
    SELECT * EXCLUDE (sg, last_kind),
        idx > 0 AND kind_name IS NOT NULL AND kind_name <> last_kind[1] AND sg = last_kind[2] AS kind_break
    FROM (SELECT *, last_value(CASE WHEN kind_name IS NOT NULL THEN [kind_name, sg] END IGNORE NULLS) OVER (
              PARTITION BY run_id ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS last_kind
          FROM stepped)
)
SELECT * EXCLUDE (n_before, opt_before, bound_before, marked, bounded, s_id, ps, sv, gr, kind_name, annotated_break,
                  replay_break, kind_break, walk, walk_cls, inst_no, walk_call, module_break, joined, inferred),
    module_break AND NOT annotated_break AND NOT replay_break AS module_break,
    joined AND NOT annotated_break AND NOT replay_break AS joined,
    annotated_break OR replay_break OR kind_break AND NOT joined AS step_break,
    replay_break AND NOT annotated_break AS replay_break,
    kind_break AND NOT joined AND NOT annotated_break AND NOT replay_break AS kind_break,
    annotated_break OR replay_break OR module_break OR inferred AND NOT joined AS forced,
    coalesce(sv, ps) AS step_ns
FROM (
    -- what the kernels between two anchors suggest gives way to the module tree's word (joined): one walk
    -- through the model's blocks is one pass
    SELECT *, kind_break
        OR marked AND coalesce(avg(marked::INTEGER) FILTER (WHERE idx > 0) OVER (PARTITION BY run_id), 0) < 0.5
        -- the ends of a forward, judged on their own: a per-layer kernel of such a name (a router's arg-max)
        -- runs between most anchors and ends nothing, and takes no pipeline break away
        OR bounded AND coalesce(avg(bounded::INTEGER) FILTER (WHERE idx > 0) OVER (PARTITION BY run_id), 0) < 0.5
        AS inferred
    FROM kinded
);
DROP TABLE _break_marks;
DROP TABLE _anchor_steps;
DROP TABLE _anchor_walks;
