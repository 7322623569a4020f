-- Attribute each device activity of the selected runs to the host side that launched it.
-- 1. launch: the view kernel_launches (the runtime/driver call with the kernel's correlation id, or in
--    Ascend's trace_view.json the op whose async_npu flow ends at the task). A kernel of a
--    graph replay matched to its capture (_graph_launches) keeps its graph launch as its launch, but its
--    frames are those of the launch call that captured it, in the capture run: as if launched eagerly.
-- 2. frames: the host events of the launching thread that enclose the launch time (start <= t < end):
--    cpu_op (the PyTorch profiler's older traces call it 'operator'), user_annotation, python_function.
--    The innermost of each kind is the latest to start. A step's annotation (ProfilerStep#N, a serving
--    step: step_mark in macros.sql) is no frame.
--    nn.Module frames (python_function named 'nn.Module: ...', present when the trace was recorded
--    with modules) are a kind of their own.
--    The join is the macro enclosing (launch_macros.sql). Only frames that overlap the launches' time range
--    are read (one pass of a long trace: a small slice).
-- 3. module paths: every nn.Module frame gets its instance path, the enclosing nn.Module frames outermost
--    first ('Qwen2Model_0/Qwen2DecoderLayer_5/Qwen2Attention_5/Linear_37'), and its role, the same path
--    without what differs from layer to layer: each step is the class, and for a module with no module
--    inside it that has other instances of its class under the same parent call, the class and its
--    ordinal among those instances in order of first call ('Qwen2Model/Qwen2DecoderLayer/Qwen2Attention/
--    Linear#1': k_proj, the second Linear of every attention; HF numbers Linear instances across the whole
--    model). Calls of one instance name share its ordinal: vLLM's piecewise graph calls its attention
--    pieces 24 times as 'GraphModule_0', one role, not one per layer. A repeated module
--    with modules inside it (a decoder layer, an expert) takes no ordinal, so its instances share a role.
-- 4. module: the innermost nn.Module frame's role, else user annotation, else cpu_op, else python frame;
--    kernels with no launch found get '(no host launch)', launches outside any frame '(no host frame)'.
--    module_path: the innermost nn.Module frame's instance path, else the same as module.
-- Inputs: kernels, kernel_launches, host_events (enclosing: launch_macros.sql), trace_events, and TEMP
--   _attr_scope(run_id INTEGER, seq BIGINT, correlation_id BIGINT): the kernels to attribute (attribute_scope_runs.sql:
--   every kernel of the runs; attribute_scope_assigned.sql: the assigned kernels that are not communication); dropped
--   here. TEMP _graph_launches(run_id INTEGER, seq BIGINT, host_run_id INTEGER, pid VARCHAR, tid VARCHAR, t BIGINT)
--   when present (graph_capture_match.sql): graph-replayed kernels and the capture run, thread and time of the launch
--   call that captured each; dropped here.
-- Parameters:
--   $run_ids INTEGER[]: the runs of _attr_scope
-- Output: TEMP _attr, one row per kernel of _attr_scope:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   launch_ns BIGINT: start of its launch (step 1); NULL: no launch found
--   cpu_op VARCHAR: innermost cpu_op frame around the launch
--   annotation VARCHAR: innermost user_annotation frame around the launch
--   nn_module VARCHAR: innermost nn.Module frame around the launch ('nn.Module: Linear_37')
--   python_frame VARCHAR: innermost python_function frame around the launch that is not an nn.Module frame
--   module VARCHAR: step 4: the innermost nn.Module frame's role, else annotation, cpu_op, python frame,
--     '(no host frame)' or '(no host launch)'
--   module_path VARCHAR: step 4: the innermost nn.Module frame's instance path, else the same as module
--   module_calls BIGINT[]: the start of each nn.Module frame on module_path, outermost first (which call of
--     an instance launched the kernel: a decoder layer runs once per forward pass); NULL without one
-- TEMP _launches, _module_frames and _attr_frames are scratch, dropped at the end.
CREATE TEMP TABLE IF NOT EXISTS _graph_launches (run_id INTEGER, seq BIGINT, host_run_id INTEGER, pid VARCHAR,
    tid VARCHAR, t BIGINT);

CREATE OR REPLACE TEMP TABLE _launches AS
WITH own AS (
    -- list_contains, not IN (SELECT unnest(...)): DuckDB pushes it into the view, below its window
    SELECT l.run_id, l.seq, l.pid, l.tid, l.call_ns AS t
    FROM kernel_launches l SEMI JOIN _attr_scope s USING (run_id, seq)
    WHERE list_contains($run_ids, l.run_id)
)
-- host_run_id, pid, tid, t: where the frames are; launch_ns: the launch itself
SELECT o.run_id, o.seq, CASE WHEN g.seq IS NULL THEN o.run_id ELSE g.host_run_id END AS host_run_id,
    CASE WHEN g.seq IS NULL THEN o.pid ELSE g.pid END AS pid, CASE WHEN g.seq IS NULL THEN o.tid ELSE g.tid END AS tid,
    CASE WHEN g.seq IS NULL THEN o.t ELSE g.t END AS t, o.t AS launch_ns
FROM own o LEFT JOIN _graph_launches g USING (run_id, seq);

CREATE OR REPLACE TEMP TABLE _module_frames AS
WITH m AS (
    SELECT run_id, seq, pid, tid, start_ns, start_ns + greatest(dur_ns, 1) AS end_ns,
        substr(name, 12) AS inst, regexp_replace(substr(name, 12), '_\d+$', '') AS cls
    FROM host_events
    JOIN (SELECT host_run_id AS run_id, min(t) AS lo, max(t) AS hi FROM _launches GROUP BY ALL) USING (run_id)
    WHERE cat = 'python_function' AND starts_with(name, 'nn.Module: ')
      -- only frames around some launch of their run (their ancestors overlap the range too)
      AND start_ns <= hi AND start_ns + greatest(dur_ns, 1) > lo
), b AS (
    SELECT *, unnest(range(start_ns // 1000000, (end_ns - 1) // 1000000 + 1)) AS bucket FROM m
), anc AS (
    -- every enclosing nn.Module frame of each frame (same thread), met in the bucket of the frame's start
    SELECT c.run_id, c.seq, p.seq AS anc_seq, p.start_ns AS anc_start, p.end_ns AS anc_end
    FROM m c JOIN b p ON p.run_id = c.run_id AND p.pid IS NOT DISTINCT FROM c.pid AND p.tid IS NOT DISTINCT FROM c.tid
     AND p.bucket = c.start_ns // 1000000 AND p.start_ns <= c.start_ns AND c.end_ns <= p.end_ns AND p.seq <> c.seq
), parent AS (
    SELECT run_id, seq, arg_max(anc_seq, (anc_start, -anc_end)) AS parent_seq FROM anc GROUP BY ALL
), parented AS (
    SELECT m.*, pr.parent_seq,
        EXISTS (SELECT 1 FROM parent x WHERE x.run_id = m.run_id AND x.parent_seq = m.seq) AS has_children,
        -- when the instance first runs under this parent call: calls of one instance share its ordinal
        min(m.start_ns) OVER (PARTITION BY m.run_id, m.pid, m.tid, pr.parent_seq, m.inst) AS inst_first
    FROM m LEFT JOIN parent pr USING (run_id, seq)
), labelled AS (
    -- ordinal among the distinct instances of the class under the parent call, in order of first call
    SELECT *,
        dense_rank() OVER (PARTITION BY run_id, pid, tid, parent_seq, cls ORDER BY inst_first, inst) - 1 AS ord,
        max(ord_probe) OVER (PARTITION BY run_id, pid, tid, parent_seq, cls) AS same_class
    FROM (SELECT *, dense_rank() OVER (PARTITION BY run_id, pid, tid, parent_seq, cls ORDER BY inst) AS ord_probe
          FROM parented)
), step AS (
    SELECT *, CASE WHEN has_children OR same_class = 1 OR parent_seq IS NULL THEN cls ELSE cls || '#' || ord END AS role_step
    FROM labelled
)
SELECT s.run_id, s.seq, s.inst, s.cls,
    coalesce(string_agg(p.inst, '/' ORDER BY a.anc_start, a.anc_end DESC) || '/', '') || s.inst AS path,
    coalesce(string_agg(p.role_step, '/' ORDER BY a.anc_start, a.anc_end DESC) || '/', '') || s.role_step AS role,
    coalesce(list(p.start_ns ORDER BY a.anc_start, a.anc_end DESC) FILTER (WHERE p.seq IS NOT NULL), [])
        || [s.start_ns] AS calls
FROM step s
LEFT JOIN anc a ON a.run_id = s.run_id AND a.seq = s.seq
LEFT JOIN step p ON p.run_id = a.run_id AND p.seq = a.anc_seq
GROUP BY s.run_id, s.seq, s.inst, s.cls, s.role_step, s.start_ns;

CREATE OR REPLACE TEMP TABLE _attr_frames AS
SELECT run_id, pid, tid, start_ns, start_ns + dur_ns AS end_ns, seq AS frame_seq, name,
    CASE WHEN cat = 'python_function' AND starts_with(name, 'nn.Module:') THEN 'nn_module'
         WHEN cat = 'operator' THEN 'cpu_op' ELSE cat END AS kind
FROM host_events
JOIN (SELECT host_run_id AS run_id, min(t) AS lo, max(t) AS hi FROM _launches GROUP BY ALL) USING (run_id)
WHERE cat IN ('cpu_op', 'operator', 'user_annotation', 'python_function')
  AND dur_ns > 0 AND start_ns <= hi AND start_ns + dur_ns > lo
  -- a step is no frame: ProfilerStep#N (or a serving step) around every launch of the step would name
  -- every kernel the step launched outside an nn.Module by the step instead of its op
  AND NOT step_mark(name);

CREATE OR REPLACE TEMP TABLE _attr AS
WITH innermost AS (
    SELECT launch_run AS run_id, launch_seq AS seq, kind, arg_max(name, start_ns) AS name,
        arg_max(frame_seq, start_ns) AS frame_seq
    FROM enclosing('_launches', '_attr_frames')
    GROUP BY ALL
), per_kernel AS (
    SELECT l.run_id, l.seq, l.host_run_id, l.launch_ns,
        max(e.name) FILTER (WHERE e.kind = 'cpu_op') AS cpu_op,
        max(e.name) FILTER (WHERE e.kind = 'user_annotation') AS annotation,
        max(e.name) FILTER (WHERE e.kind = 'nn_module') AS nn_module,
        max(e.frame_seq) FILTER (WHERE e.kind = 'nn_module') AS module_seq,
        max(e.name) FILTER (WHERE e.kind = 'python_function') AS python_frame
    FROM _launches l LEFT JOIN innermost e USING (run_id, seq)
    GROUP BY ALL
), named AS (
    SELECT k.run_id, k.seq, p.launch_ns, p.cpu_op, p.annotation, p.nn_module, p.python_frame, mf.role, mf.path, mf.calls,
        CASE WHEN p.seq IS NULL THEN '(no host launch)'
             ELSE coalesce(p.annotation, p.cpu_op, p.python_frame, '(no host frame)') END AS other
    FROM _attr_scope k
    LEFT JOIN per_kernel p USING (run_id, seq)
    LEFT JOIN _module_frames mf ON mf.run_id = p.host_run_id AND mf.seq = p.module_seq
)
SELECT run_id, seq, launch_ns, cpu_op, annotation, nn_module, python_frame,
    coalesce(role, other) AS module, coalesce(path, other) AS module_path, calls AS module_calls
FROM named;
DROP TABLE _module_frames;
DROP TABLE _attr_frames;
DROP TABLE _launches;
DROP TABLE _attr_scope;
DROP TABLE _graph_launches;
