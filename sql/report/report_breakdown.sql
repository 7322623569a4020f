-- Report `breakdown`: where device time goes, one row per unit (run, step, pass or layer), in the
-- Ascend profiler's step_trace_time.csv terms. computing and communication are the lengths of the
-- unions of the unit's computing and communication intervals (breakdown_union.sql); overlapped is
-- their intersection, comm_not_overlapped the communication outside it, free the span with no kernel
-- running (span = computing + comm_not_overlapped + free).
-- Memory copies and fills (kind memcpy, memset) are neither computing nor communication, so free time in
-- those columns, as in the Ascend profiler; their own time follows in columns of its own, split as AMD
-- TraceLens's gpu_timeline splits it (TraceLens/TreePerf/gpu_event_analyser.py): a copy's time is exposed
-- where no kernel or communication op runs, a fill's where no copy runs either, and device_span, the span
-- of every activity copies and fills included, is
--   device_span = computing + comm_not_overlapped + memcpy_exposed + memset_exposed + idle
-- (idle: no activity at all). TraceLens's total_time, computation_time, exposed_comm_time,
-- exposed_memcpy_time and idle_time are device_span, computing, comm_not_overlapped, memcpy_exposed and idle
-- where the trace has no memset (TraceLens counts a memset as computation).
-- Beside them, the Ascend profiler's own figures of the unit where the run has its step_trace_time.csv
-- (step_times): per run the sum of its lines, per step the step's line; none per pass or layer, which the
-- file does not know. A run without kernels (_bd_no_kernels: a rank folder of communication analyses only)
-- cannot tell computing from idle time by its communication ops: the profiler's figures are its own there
-- (source step_trace_time), else its computing, overlap and free time are unknown (source communication.json).
-- The lines of one device are read: the run's (runs.device_id) when the file has it, else the file's only
-- one; a file of several devices none of which is the run's gives no figures.
-- Inputs: _bd_units (breakdown_union.sql), runs, _bd_no_kernels (breakdown_activity.sql; empty by pass and layer),
--   step_times.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $by VARCHAR: the unit: run | step | pass | layer
-- Output: rows, one per unit:
--   run VARCHAR: the run's name
--   rank INTEGER: the run's rank; NULL when unknown
--   step BIGINT: the profiler step (--by step), else NULL
--   pass BIGINT: the pass (--by pass, layer), else NULL
--   layer BIGINT: the layer (--by layer; NULL with a pass: the prologue or epilogue), else NULL
--   source VARCHAR: where span_us to free_us come from: kernels (tracedb's, from the kernels and communication ops);
--     step_trace_time (the Ascend profiler's step_trace_time.csv, for a rank without kernels); communication.json (a
--     rank with communication ops only: computing, overlap and free unknown)
--   span_us DECIMAL(23,3): first start to last end of the unit's kernels and communication ops
--   computing_us DECIMAL(23,3): union of the computing intervals; NULL for source communication.json
--   communication_us DECIMAL(23,3): union of the communication intervals
--   overlapped_us DECIMAL(23,3): computing and communication at once (NULL as computing)
--   comm_not_overlapped_us DECIMAL(23,3): communication - overlapped (NULL as computing)
--   free_us DECIMAL(23,3): span - union of all intervals (NULL as computing)
--   prof_span_us DECIMAL(23,3): the Ascend profiler's own time of the unit's steps (step_trace_time.csv: Stage +
--     Bubble); NULL without its figures
--   prof_computing_us DECIMAL(23,3): its Computing
--   prof_communication_us DECIMAL(23,3): its Communication
--   prof_overlapped_us DECIMAL(23,3): its Overlapped
--   prof_comm_not_overlapped_us DECIMAL(23,3): its Communication(Not Overlapped)
--   prof_free_us DECIMAL(23,3): its Free
--   prof_bubble_us DECIMAL(23,3): its Bubble: receive ops (pipeline parallel)
--   prof_preparing_us DECIMAL(23,3): its Preparing: from the step's start to its first device op (NULL in layouts
--     without it)
--   unit VARCHAR: --by layer: prologue | layer | epilogue; else NULL
--   memcpy_us DECIMAL(23,3): union of the unit's memcpy intervals; NULL unless source kernels (as the four below)
--   memcpy_overlapped_us DECIMAL(23,3): memcpy while computing or communication runs
--   memcpy_exposed_us DECIMAL(23,3): memcpy - memcpy_overlapped: no kernel or communication op running
--   memset_us DECIMAL(23,3): union of the unit's memset intervals
--   memset_exposed_us DECIMAL(23,3): memset with no kernel, communication op or memcpy running
--   device_span_us DECIMAL(23,3): first start to last end of every activity of the unit, copies and fills
--     included (>= span); NULL unless source kernels
--   idle_us DECIMAL(23,3): device_span - union of every interval: nothing running (NULL as device_span)
WITH lines AS (
    SELECT s.*, r.device_id AS run_device,
        count(DISTINCT coalesce(s.device_id, -2)) OVER (PARTITION BY s.run_id) AS devices
    FROM step_times s JOIN runs r USING (run_id)
    WHERE s.run_id IN (SELECT unnest($run_ids)) AND $by IN ('run', 'step')
), prof AS (
    -- one row per run (per_run) and one per (run, step); a file without step marks has its one step NULL
    SELECT run_id, step, grouping(step) = 1 AS per_run,
        sum(stage_ns + bubble_ns)::BIGINT AS span_ns, sum(computing_ns)::BIGINT AS computing_ns,
        sum(communication_ns)::BIGINT AS communication_ns, sum(overlapped_ns)::BIGINT AS overlapped_ns,
        sum(comm_not_overlapped_ns)::BIGINT AS comm_not_overlapped_ns, sum(free_ns)::BIGINT AS free_ns,
        sum(bubble_ns)::BIGINT AS bubble_ns, sum(preparing_ns)::BIGINT AS preparing_ns
    FROM lines
    WHERE devices = 1 OR device_id = run_device
    GROUP BY GROUPING SETS ((run_id), (run_id, step))
), units AS (
    SELECT u.*, n.run_id IS NOT NULL AS no_kernels, p.run_id IS NOT NULL AS profiled,
        p.span_ns AS p_span, p.computing_ns AS p_comp, p.communication_ns AS p_comm, p.overlapped_ns AS p_ov,
        p.comm_not_overlapped_ns AS p_nov, p.free_ns AS p_free, p.bubble_ns AS p_bubble, p.preparing_ns AS p_prep
    FROM _bd_units u
    LEFT JOIN _bd_no_kernels n USING (run_id)
    LEFT JOIN prof p ON p.run_id = u.run_id
        AND CASE $by WHEN 'run' THEN p.per_run WHEN 'step' THEN NOT p.per_run AND p.step = u.step ELSE false END
)
SELECT r.name AS run, r.rank, u.step, u.pass, u.layer,
    CASE WHEN NOT u.no_kernels THEN 'kernels' WHEN u.profiled THEN 'step_trace_time' ELSE 'communication.json' END
        AS source,
    us(CASE WHEN u.no_kernels AND u.profiled THEN u.p_span ELSE u.last_ns - u.first_ns END) AS span_us,
    -- a run with communication ops only: its computing, and so overlap and free time, are unknown
    us(CASE WHEN NOT u.no_kernels THEN u.computing_ns WHEN u.profiled THEN u.p_comp END) AS computing_us,
    us(CASE WHEN u.no_kernels AND u.profiled THEN u.p_comm ELSE u.communication_ns END) AS communication_us,
    us(CASE WHEN NOT u.no_kernels THEN u.computing_ns + u.communication_ns - u.busy_ns
            WHEN u.profiled THEN u.p_ov END) AS overlapped_us,
    us(CASE WHEN NOT u.no_kernels THEN u.busy_ns - u.computing_ns WHEN u.profiled THEN u.p_nov END)
        AS comm_not_overlapped_us,
    us(CASE WHEN NOT u.no_kernels THEN u.last_ns - u.first_ns - u.busy_ns WHEN u.profiled THEN u.p_free END)
        AS free_us,
    us(u.p_span) AS prof_span_us, us(u.p_comp) AS prof_computing_us, us(u.p_comm) AS prof_communication_us,
    us(u.p_ov) AS prof_overlapped_us, us(u.p_nov) AS prof_comm_not_overlapped_us, us(u.p_free) AS prof_free_us,
    us(u.p_bubble) AS prof_bubble_us, us(u.p_prep) AS prof_preparing_us, u.unit,
    -- a rank without kernel rows has none of its copies either: NULL, not 0
    us(CASE WHEN NOT u.no_kernels THEN u.memcpy_ns END) AS memcpy_us,
    us(CASE WHEN NOT u.no_kernels THEN u.memcpy_ns + u.busy_ns - u.busy_memcpy_ns END) AS memcpy_overlapped_us,
    us(CASE WHEN NOT u.no_kernels THEN u.busy_memcpy_ns - u.busy_ns END) AS memcpy_exposed_us,
    us(CASE WHEN NOT u.no_kernels THEN u.memset_ns END) AS memset_us,
    us(CASE WHEN NOT u.no_kernels THEN u.all_ns - u.busy_memcpy_ns END) AS memset_exposed_us,
    us(CASE WHEN NOT u.no_kernels THEN u.last_all_ns - u.first_all_ns END) AS device_span_us,
    us(CASE WHEN NOT u.no_kernels THEN u.last_all_ns - u.first_all_ns - u.all_ns END) AS idle_us
FROM units u JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, u.run_id), u.step, u.pass, u.unit IS NOT DISTINCT FROM 'epilogue', u.layer NULLS FIRST;
