-- Report `launches`: the host launch call of every device activity of the runs. A launch call is the
-- runtime or driver call that Kineto links to the activity by its correlation id (args.correlation):
-- host events of category cuda_runtime or cuda_driver (cudaLaunchKernel, cudaLaunchKernelExC,
-- cuLaunchKernel, cudaGraphLaunch, cudaMemcpyAsync, cudaMemsetAsync; on ROCm hipLaunchKernel,
-- hipExtModuleLaunchKernel, hipModuleLaunchKernel, hipGraphLaunch, hipMemcpyAsync, hipMemcpyWithStream
-- under the same categories), privateuse1_runtime / privateuse1_driver, and `runtime` (the legacy
-- Kineto category 'Runtime'), as attribute_modules.sql finds launches. No API name list: whatever call
-- carries the id is the launch, so a graph launch is the launch of every kernel of its graph. A
-- correlation id is unique per run in Kineto; should two calls carry one, the first (by start) is taken.
-- Inputs: kernels, host_events, runs.
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
SELECT k.run_id, k.seq, h.seq AS call_seq, h.name AS api, h.start_ns AS call_ns, h.dur_ns AS call_dur_ns
FROM kernels k
JOIN host_events h ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm', 'memcpy', 'memset')
  AND k.correlation_id IS NOT NULL
  AND launch_call(h.cat)
QUALIFY row_number() OVER (PARTITION BY k.run_id, k.seq ORDER BY h.start_ns, h.seq) = 1;
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
