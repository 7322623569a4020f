-- Report `breakdown`: where device time goes, one row per unit (run, step, pass or layer), in the
-- Ascend profiler's step_trace_time.csv terms. computing and communication are the lengths of the
-- unions of the unit's computing and communication intervals (breakdown_union.sql); overlapped is
-- their intersection, comm_not_overlapped the communication outside it, free the span with no kernel
-- running (span = computing + comm_not_overlapped + free).
-- Inputs: _bd_units, runs, _bd_comm_only (breakdown_activity.sql; empty by pass and layer).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per unit:
--   run VARCHAR: the run's name
--   step BIGINT: the profiler step (--by step), else NULL
--   pass BIGINT: the pass (--by pass, layer), else NULL
--   layer BIGINT: the layer (--by layer; NULL with a pass: the prologue or epilogue), else NULL
--   span_us DECIMAL(23,3): first start to last end of the unit's activities
--   computing_us DECIMAL(23,3): union of the computing intervals; NULL for a run with communication ops only
--   communication_us DECIMAL(23,3): union of the communication intervals
--   overlapped_us DECIMAL(23,3): computing and communication at once (NULL as computing)
--   comm_not_overlapped_us DECIMAL(23,3): communication - overlapped (NULL as computing)
--   free_us DECIMAL(23,3): span - union of all intervals (NULL as computing)
--   unit VARCHAR: --by layer: prologue | layer | epilogue; else NULL
SELECT r.name AS run, u.step, u.pass, u.layer,
    us(u.last_ns - u.first_ns) AS span_us,
    -- a run with communication ops only: its computing, and so overlap and free time, are unknown
    CASE WHEN c.run_id IS NULL THEN us(u.computing_ns) END AS computing_us,
    us(u.communication_ns) AS communication_us,
    CASE WHEN c.run_id IS NULL THEN us(u.computing_ns + u.communication_ns - u.busy_ns) END AS overlapped_us,
    CASE WHEN c.run_id IS NULL THEN us(u.busy_ns - u.computing_ns) END AS comm_not_overlapped_us,
    CASE WHEN c.run_id IS NULL THEN us(u.last_ns - u.first_ns - u.busy_ns) END AS free_us, u.unit
FROM _bd_units u JOIN runs r USING (run_id) LEFT JOIN _bd_comm_only c USING (run_id)
ORDER BY list_position($run_ids, u.run_id), u.step, u.pass, u.unit IS NOT DISTINCT FROM 'epilogue', u.layer NULLS FIRST;
