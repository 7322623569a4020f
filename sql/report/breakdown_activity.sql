-- Report `breakdown`, --by run and --by step: the device activities whose time the breakdown divides,
-- one unit per run (breakdown_steps.sql then splits them by step). As in the Ascend profiler's
-- step_trace_time.csv, only kernels and communication ops count: kind 'kernel' (compute) and 'comm'
-- (logged as communication). Memcpy and memset activities (kind 'memcpy', 'memset') are neither
-- computing nor communication, so their time is free; per-core tasks (kind 'task') are not kernels.
-- Communication is recognised as in every report (segment_assign.sql): logged as such (Ascend HCCL /
-- hcom rows, trace_view.json collectives) or in the profile's 'communication' category by name or op
-- type (NCCL/RCCL kernels, DeepEP, custom all-reduce kernels).
-- Inputs: kernels, _cats (categories.sql over the runs' kernel names).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _bd_act, one row per counted kernel or communication op of the runs:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: its step (NULL here; breakdown_steps.sql sets it)
--   pass BIGINT: its pass (NULL here)
--   layer BIGINT: its layer (NULL here)
--   unit VARCHAR: its unit (NULL here)
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   is_comm BOOLEAN: communication (else computing)
-- Output: TEMP _bd_uncounted, one row per run and kind of activity that does not count (memcpy, memset,
--   task), for the report's note:
--   run_id INTEGER: the run
--   kind VARCHAR: the kind
--   activities BIGINT: how many
--   dur_ns BIGINT: their time
CREATE OR REPLACE TEMP TABLE _bd_act AS
SELECT k.run_id, k.seq, NULL::BIGINT AS step, NULL::BIGINT AS pass, NULL::BIGINT AS layer, NULL::VARCHAR AS unit,
    k.start_ns AS s, k.start_ns + k.dur_ns AS e, k.kind = 'comm' OR c.category = 'communication' AS is_comm
FROM kernels k
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm');
CREATE OR REPLACE TEMP TABLE _bd_uncounted AS
SELECT k.run_id, k.kind, count(*) AS activities, sum(k.dur_ns)::BIGINT AS dur_ns
FROM kernels k
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind NOT IN ('kernel', 'comm')
GROUP BY k.run_id, k.kind;
