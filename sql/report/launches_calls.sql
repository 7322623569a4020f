-- Report `launches`: the host launch call of every device activity of the runs (view kernel_launches): the
-- runtime or driver call that carries the activity's correlation id (Kineto's cuda_runtime, cuda_driver,
-- privateuse1_* and `runtime` categories: cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel,
-- cudaGraphLaunch, cudaMemcpyAsync, cudaMemsetAsync; on ROCm hipLaunchKernel, hipExtModuleLaunchKernel,
-- hipGraphLaunch, hipMemcpyWithStream under the same categories), or in Ascend's trace_view.json the op an
-- async_npu flow leads from to the task. No API name list: whatever call carries the id is the launch, so a
-- graph launch is the launch of every kernel of its graph.
-- Inputs: kernels, kernel_launches, host_events, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _la_calls, one row per device activity (kernel, communication op, memcpy, memset) of the
--   runs whose launch call is in the trace:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   call_seq BIGINT: the launch call (host_events.seq)
--   api VARCHAR: the launch call's name (cudaLaunchKernel, hipGraphLaunch, ...)
--   call_ns BIGINT: the launch call's start, ns
--   call_dur_ns BIGINT: the launch call's duration, ns
-- Output: TEMP _la_runs, one row per run, what the report says of runs without launches:
--   run_id INTEGER: the run
--   format VARCHAR: runs.format
--   activities BIGINT: its device activities (kernel, comm, memcpy, memset)
--   launched BIGINT: those with a launch call
--   unlaunched_ns BIGINT: the time of those without
--   host_events BIGINT: its host events (0: a device-only trace or a CSV)
--   devices BIGINT: distinct device ids of its activities
CREATE OR REPLACE TEMP TABLE _la_calls AS
SELECT k.run_id, k.seq, l.call_seq, l.api, l.call_ns, l.call_dur_ns
FROM kernels k
JOIN kernel_launches l USING (run_id, seq)
-- list_contains, not IN (SELECT unnest(...)): DuckDB pushes it into the view, below its window (on a store of
-- 30 runs, 0.015 s against 0.125 s for one run's launches)
WHERE k.run_id IN (SELECT unnest($run_ids)) AND list_contains($run_ids, l.run_id)
  AND k.kind IN ('kernel', 'comm', 'memcpy', 'memset');
CREATE OR REPLACE TEMP TABLE _la_runs AS
WITH acts AS (
    SELECT k.run_id, count(*) AS activities, count(c.seq) AS launched,
        coalesce(sum(k.dur_ns) FILTER (WHERE c.seq IS NULL), 0)::BIGINT AS unlaunched_ns,
        count(DISTINCT k.device_id) AS devices
    FROM kernels k LEFT JOIN _la_calls c USING (run_id, seq)
    WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm', 'memcpy', 'memset')
    GROUP BY k.run_id
), hosts AS (
    SELECT run_id, count(*) AS host_events FROM host_events WHERE run_id IN (SELECT unnest($run_ids)) GROUP BY run_id
)
SELECT r.run_id, r.format, coalesce(a.activities, 0) AS activities, coalesce(a.launched, 0) AS launched,
    coalesce(a.unlaunched_ns, 0)::BIGINT AS unlaunched_ns, coalesce(h.host_events, 0) AS host_events,
    coalesce(a.devices, 0) AS devices
FROM runs r LEFT JOIN acts a USING (run_id) LEFT JOIN hosts h USING (run_id)
WHERE r.run_id IN (SELECT unnest($run_ids));
