-- Report `breakdown --by step`: the profiler step of each activity of _bd_act and of each copy and fill
-- of _bd_copy (breakdown_activity.sql), found the same way.
-- A kernel_details.csv run has it on every row (its Step Id column: kernels.step_id). A trace file has
-- ProfilerStep#N annotations on the host (torch.profiler's prof.step(): cat user_annotation, cpu_op in
-- Ascend's trace_view.json, operator in old Kineto; their GPU-side copies, gpu_user_annotation, are not
-- read). An activity is in step N when its launch lies in [start, end) of ProfilerStep#N, which is how
-- HTA gives a GPU kernel the iteration of its correlated CPU event (hta/common/trace.py, add_iteration).
-- The launch is the view kernel_launches' (the runtime call with the activity's correlation id, or in
-- trace_view.json the op its async_npu flow starts at), as report modules finds it. A communication op of a rank
-- without kernels (comm_ops, seq NULL in _bd_act) is in the step communication.json files it under ('step13').
-- Activities in no step (no Step Id, no launch in the trace, or a launch outside every ProfilerStep#N)
-- leave _bd_act; _bd_step_summary counts them. Copies and fills in no step leave _bd_copy, uncounted.
-- Inputs: _bd_act, _bd_copy, kernels, kernel_launches, host_events, comm_ops.
-- Parameters:
--   $run_ids INTEGER[]: the runs of _bd_act
-- Output: TEMP _bd_step_summary, one row per run of _bd_act:
--   run_id INTEGER: the run
--   marks BIGINT: its ProfilerStep#N annotations
--   stepped BIGINT: activities with a step
--   unstepped BIGINT: activities in no step
--   unstepped_ns BIGINT: their time
-- Output: TEMP _bd_act, the activities with a step, the same columns with step set:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq); NULL for an op of comm_ops
--   step BIGINT: its step
--   pass BIGINT: NULL
--   layer BIGINT: NULL
--   unit VARCHAR: NULL
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   is_comm BOOLEAN: communication (else computing)
-- Output: TEMP _bd_copy, the copies and fills with a step, the same columns with step set:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: its step
--   pass BIGINT: NULL
--   layer BIGINT: NULL
--   unit VARCHAR: NULL
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   kind VARCHAR: memcpy | memset
-- TEMP _bd_marks, _bd_launches and _bd_stepped are scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _bd_marks AS
SELECT run_id, CAST(regexp_extract(name, '^ProfilerStep#(\d+)$', 1) AS BIGINT) AS step, start_ns,
    start_ns + dur_ns AS end_ns
FROM host_events
WHERE run_id IN (SELECT unnest($run_ids)) AND regexp_matches(name, '^ProfilerStep#\d+$')
  AND cat IS DISTINCT FROM 'gpu_user_annotation';
CREATE OR REPLACE TEMP TABLE _bd_launches AS
WITH scope AS (
    -- the activities without a Step Id of their own
    SELECT a.run_id, a.seq
    FROM (SELECT run_id, seq FROM _bd_act UNION ALL SELECT run_id, seq FROM _bd_copy) a
    JOIN kernels k USING (run_id, seq)
    WHERE k.step_id IS NULL
)
-- list_contains, not IN (SELECT unnest(...)): DuckDB pushes it into the view, below its window
SELECT l.run_id, l.seq, l.call_ns AS t
FROM kernel_launches l SEMI JOIN scope s USING (run_id, seq)
WHERE list_contains($run_ids, l.run_id);
CREATE OR REPLACE TEMP TABLE _bd_stepped AS
WITH filed AS (
    -- an op of communication.json is matched to its _bd_act row by start (breakdown_activity.sql copies it)
    SELECT run_id, start_ns, min(TRY_CAST(regexp_extract(step, '^step(\d+)$', 1) AS BIGINT)) AS step
    FROM comm_ops
    WHERE run_id IN (SELECT unnest($run_ids)) AND start_ns IS NOT NULL
    GROUP BY ALL
)
SELECT a.*, coalesce(k.step_id, CASE WHEN l.t < m.end_ns THEN m.step END, f.step) AS found_step
FROM _bd_act a
LEFT JOIN kernels k USING (run_id, seq)
LEFT JOIN filed f ON a.seq IS NULL AND f.run_id = a.run_id AND f.start_ns = a.s
LEFT JOIN _bd_launches l USING (run_id, seq)
ASOF LEFT JOIN _bd_marks m ON m.run_id = l.run_id AND l.t >= m.start_ns
WHERE k.run_id IS NOT NULL OR a.seq IS NULL;
CREATE OR REPLACE TEMP TABLE _bd_step_summary AS
SELECT a.run_id, (SELECT count(*) FROM _bd_marks m WHERE m.run_id = a.run_id) AS marks,
    count(*) FILTER (WHERE a.found_step IS NOT NULL) AS stepped,
    count(*) FILTER (WHERE a.found_step IS NULL) AS unstepped,
    coalesce(sum(a.e - a.s) FILTER (WHERE a.found_step IS NULL), 0)::BIGINT AS unstepped_ns
FROM _bd_stepped a GROUP BY a.run_id;
CREATE OR REPLACE TEMP TABLE _bd_act AS
SELECT run_id, seq, found_step AS step, pass, layer, unit, s, e, is_comm FROM _bd_stepped WHERE found_step IS NOT NULL;
CREATE OR REPLACE TEMP TABLE _bd_copy AS
SELECT a.run_id, a.seq, coalesce(k.step_id, CASE WHEN l.t < m.end_ns THEN m.step END) AS step, a.pass, a.layer,
    a.unit, a.s, a.e, a.kind
FROM _bd_copy a
JOIN kernels k USING (run_id, seq)
LEFT JOIN _bd_launches l USING (run_id, seq)
ASOF LEFT JOIN _bd_marks m ON m.run_id = l.run_id AND l.t >= m.start_ns
WHERE coalesce(k.step_id, CASE WHEN l.t < m.end_ns THEN m.step END) IS NOT NULL;
DROP TABLE _bd_stepped;
DROP TABLE _bd_launches;
DROP TABLE _bd_marks;
