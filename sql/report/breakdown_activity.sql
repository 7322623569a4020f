-- Report `breakdown`, --by run and --by step: the device activities whose time the breakdown divides,
-- one unit per run (breakdown_steps.sql then splits them by step). As in the Ascend profiler's
-- step_trace_time.csv, only kernels and communication ops count: kind 'kernel' (compute) and 'comm'
-- (logged as communication). Memcpy and memset activities (kind 'memcpy', 'memset') are neither
-- computing nor communication, so their time is free; they go to _bd_copy, whose time the report
-- gives in columns of its own (breakdown_union.sql), and not to _bd_act, whose gaps report launches
-- splits into its idle time (launches_gaps.sql): free time keeps the copies. Per-core tasks (kind
-- 'task') are not kernels.
-- Communication is recognised as in every report (segment_assign.sql): logged as such (Ascend HCCL /
-- hcom rows, trace_view.json collectives) or in the profile's 'communication' category by name or op
-- type (NCCL/RCCL kernels, DeepEP, custom all-reduce kernels).
-- A rank without kernel rows whose profiler wrote its communication (an Ascend rank folder with
-- communication.json but no kernel_details.csv) counts its ops of comm_ops as communication, seq NULL:
-- its computing is unknown, not zero (_bd_no_kernels lists such runs). Its profiler's step_trace_time.csv
-- (step_times), when the folder has one, gives the figures the kernels would have (report_breakdown.sql);
-- _bd_comm_only lists the runs without it, whose computing, overlap and free time stay unknown.
-- Inputs: kernels, _cats (categories.sql over the runs' kernel names), comm_ops, step_times.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _bd_act, one row per counted kernel or communication op of the runs:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq); NULL for an op of comm_ops
--   step BIGINT: its step (NULL here; breakdown_steps.sql sets it)
--   pass BIGINT: its pass (NULL here)
--   layer BIGINT: its layer (NULL here)
--   unit VARCHAR: its unit (NULL here)
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   is_comm BOOLEAN: communication (else computing)
-- Output: TEMP _bd_copy, one row per memcpy or memset activity of the runs:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: its step (NULL here; breakdown_steps.sql sets it)
--   pass BIGINT: its pass (NULL here)
--   layer BIGINT: its layer (NULL here)
--   unit VARCHAR: its unit (NULL here)
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   kind VARCHAR: memcpy | memset
-- Output: TEMP _bd_no_kernels, one row per run without kernels whose communication comes from comm_ops:
--   run_id INTEGER: the run
--   ops BIGINT: its communication ops
--   step_lines BIGINT: its lines of step_trace_time.csv (step_times)
-- Output: TEMP _bd_comm_only, the runs of _bd_no_kernels without a step_trace_time.csv (step_lines 0):
--   run_id INTEGER: the run
--   ops BIGINT: its communication ops
-- Output: TEMP _bd_uncounted, one row per run and kind of activity that does not count (memcpy, memset,
--   task), for the report's note:
--   run_id INTEGER: the run
--   kind VARCHAR: the kind
--   activities BIGINT: how many
--   dur_ns BIGINT: their time
CREATE OR REPLACE TEMP TABLE _bd_no_kernels AS
SELECT c.run_id, count(*) AS ops, (SELECT count(*) FROM step_times s WHERE s.run_id = c.run_id) AS step_lines
FROM comm_ops c
WHERE c.run_id IN (SELECT unnest($run_ids)) AND c.start_ns IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM kernels k WHERE k.run_id = c.run_id)
GROUP BY c.run_id;
CREATE OR REPLACE TEMP TABLE _bd_comm_only AS
SELECT run_id, ops FROM _bd_no_kernels WHERE step_lines = 0;
CREATE OR REPLACE TEMP TABLE _bd_act AS
SELECT k.run_id, k.seq, NULL::BIGINT AS step, NULL::BIGINT AS pass, NULL::BIGINT AS layer, NULL::VARCHAR AS unit,
    k.start_ns AS s, k.start_ns + k.dur_ns AS e, k.kind = 'comm' OR c.category = 'communication' AS is_comm
FROM kernels k
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm')
UNION ALL
SELECT c.run_id, NULL, NULL, NULL, NULL, NULL, c.start_ns, c.start_ns + c.elapse_ns, true
FROM comm_ops c SEMI JOIN _bd_no_kernels USING (run_id)
WHERE c.start_ns IS NOT NULL;
CREATE OR REPLACE TEMP TABLE _bd_copy AS
SELECT k.run_id, k.seq, NULL::BIGINT AS step, NULL::BIGINT AS pass, NULL::BIGINT AS layer, NULL::VARCHAR AS unit,
    k.start_ns AS s, k.start_ns + k.dur_ns AS e, k.kind
FROM kernels k
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('memcpy', 'memset');
CREATE OR REPLACE TEMP TABLE _bd_uncounted AS
SELECT k.run_id, k.kind, count(*) AS activities, sum(k.dur_ns)::BIGINT AS dur_ns
FROM kernels k
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind NOT IN ('kernel', 'comm')
GROUP BY k.run_id, k.kind;
