-- Advise rule `launch-bound`: stretches in which the device ran many short kernels, each waiting for its launch.
-- A kernel is starved when its launch call (kernel_launches: the runtime call with its correlation id, or the op
-- an Ascend async_npu flow leads from) began only after every activity before it on the device had ended: the
-- device had nothing queued and waited for the host. A kernel
-- is launch-bound when it is starved, its launch came at most $max_launch_us after the run's previous kernel
-- launch (the host issuing kernels as fast as its per-launch cost allows: eager PyTorch spends ~5-20 us an op),
-- and it ran for less than that interval (the device finishes each kernel before the next one arrives).
-- Trigger: stretches of at least $min_kernels consecutive launch-bound kernels on a device, whose idle time
-- (from the end of the activities before each kernel to its start) sums to at least $min_pct % of the run's step
-- time.
-- Threshold source: 50 us: ten times an eager op's launch cost, far below the host stalls rules host-bound and
-- idle-gap read (hundreds of us and more); 20 kernels: one transformer layer's worth of small kernels (norms,
-- rotary, activations, residual adds); 3 %, severity low: nsys's expert rule flags chunks under 50 % GPU
-- utilisation, and a decode step that idles 3 % between kernels is worth a CUDA graph.
-- At stake: that idle time: what capturing the stretch in a graph (one launch for all) or fusing its kernels
-- takes off the step.
-- Limits: a trace without host launches (kernel_details.csv alone, a device-only trace) has no launch to wait for:
-- silent. Kernels replayed by a graph are one launch for many kernels: never starved one by one. The interval is
-- between the run's launches on any thread (a collective launched from another thread in between shortens it).
-- Rule host-bound leaves the host work inside these stretches to this rule (_adv_launch_spans).
-- Inputs: kernels, kernel_launches, _adv_act_step (each stepped activity's step), _adv_runs (advise_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $max_launch_us DOUBLE: the longest interval between launches of a launch-bound kernel, us
--   $min_kernels BIGINT: the fewest kernels of a stretch
--   $min_pct DOUBLE: the least share of the run's step time, %
-- Output: TEMP _adv_launch_spans, one row per stretch of at least $min_kernels kernels:
--   run_id INTEGER: the run
--   device_id INTEGER: the device
--   kernels BIGINT: its kernels
--   host_start_ns BIGINT: its first kernel's launch call's start (the host's side of the stretch)
--   idle_from_ns BIGINT: where the device's idle before its first kernel began
--   start_ns BIGINT: its first kernel's start
--   end_ns BIGINT: its last kernel's end
--   idle_ns BIGINT: the device's idle before each of its kernels, summed
--   busy_ns BIGINT: its kernels' time
--   launch_ns BIGINT: the median interval between its kernels' launches
--   step BIGINT: the step of its first kernel; NULL outside every step
--   kernel VARCHAR: its most frequent kernel name
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: launch-bound
--   run_id INTEGER: the run
--   step BIGINT: the step of its stretches when they all lie in one, else NULL
--   layer BIGINT: NULL
--   kernel VARCHAR: the most frequent kernel of its longest stretch
--   at_stake_ns BIGINT: the device's idle in its stretches
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the stretches and the report command
CREATE OR REPLACE TEMP TABLE _adv_launch_spans AS
WITH acts AS (
    SELECT run_id, coalesce(device_id, -1) AS device_id, seq, kind, name, correlation_id, start_ns AS s,
        start_ns + dur_ns AS e, dur_ns,
        max(start_ns + dur_ns) OVER (PARTITION BY run_id, coalesce(device_id, -1) ORDER BY start_ns, seq
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM kernels
    WHERE run_id IN (SELECT unnest($run_ids)) AND kind IN ('kernel', 'comm', 'memcpy', 'memset')
), launched AS (
    SELECT a.*, c.call_ns,
        c.call_ns - lag(c.call_ns) OVER (PARTITION BY a.run_id ORDER BY c.call_ns, a.seq) AS interval_ns
    FROM acts a JOIN kernel_launches c ON c.run_id = a.run_id AND c.seq = a.seq
    -- list_contains, not IN (SELECT unnest(...)): DuckDB pushes it into the view, below its window
    WHERE a.kind = 'kernel' AND list_contains($run_ids, c.run_id)
), flagged AS (
    SELECT *, prev_end IS NOT NULL AND call_ns >= prev_end AND interval_ns <= $max_launch_us * 1000
              AND dur_ns < interval_ns AS bound
    FROM launched
), runs_of AS (
    -- a stretch: consecutive kernels of a device, all launch-bound
    SELECT *, sum(CASE WHEN bound THEN 0 ELSE 1 END) OVER (PARTITION BY run_id, device_id ORDER BY s, seq) AS grp
    FROM flagged
)
SELECT r.run_id, r.device_id, count(*) AS kernels, min(r.call_ns) AS host_start_ns,
    min(r.prev_end) AS idle_from_ns, min(r.s) AS start_ns, max(r.e) AS end_ns, sum(r.s - r.prev_end)::BIGINT AS idle_ns, sum(r.dur_ns)::BIGINT AS busy_ns,
    median(r.interval_ns)::BIGINT AS launch_ns, arg_min(st.step, r.s) AS step, mode(r.name) AS kernel
FROM runs_of r
LEFT JOIN _adv_act_step st ON st.run_id = r.run_id AND st.seq = r.seq
WHERE r.bound
GROUP BY r.run_id, r.device_id, r.grp
HAVING count(*) >= $min_kernels;
INSERT INTO _adv_findings BY NAME
WITH per AS (
    SELECT run_id, count(*) AS n, sum(kernels)::BIGINT AS kernels, sum(idle_ns)::BIGINT AS idle_ns,
        sum(busy_ns)::BIGINT AS busy_ns, median(launch_ns)::BIGINT AS launch_ns,
        arg_max(kernel, (kernels, -start_ns)) AS kernel,
        CASE WHEN count(DISTINCT step) = 1 AND count(step) = count(*) THEN min(step) END AS step,
        min(start_ns) AS first_ns
    FROM _adv_launch_spans GROUP BY run_id
), firsts AS (
    SELECT run_id, min(start_ns) AS run_first FROM kernels WHERE run_id IN (SELECT run_id FROM per) GROUP BY run_id
)
SELECT 'launch-bound' AS rule, p.run_id, p.step, NULL::BIGINT AS layer, p.kernel, p.idle_ns AS at_stake_ns, r.base_ns,
    'the device waited for launches between ' || p.kernels || ' short kernels (' || p.n
        || CASE WHEN p.n = 1 THEN ' stretch' ELSE ' stretches' END || '): idle '
        || CAST(us(p.idle_ns) AS VARCHAR) || ' us, busy ' || CAST(us(p.busy_ns) AS VARCHAR) || ' us' AS finding,
    'kernels of ' || CAST(us(p.busy_ns // p.kernels) AS VARCHAR) || ' us on average, launched every '
        || CAST(us(p.launch_ns) AS VARCHAR) || ' us (median), each after the device had run dry; the first stretch '
        || 'from ' || CAST(us(p.first_ns - f.run_first) AS VARCHAR) || ' us after the run''s first kernel'
        || coalesce(' in step ' || p.step, '') || ': tracedb report critical-path ' || r.cmd || ' --by category'
        || coalesce(' --step ' || p.step, '') AS evidence
FROM per p JOIN _adv_runs r USING (run_id) JOIN firsts f USING (run_id)
WHERE 100.0 * p.idle_ns >= $min_pct * r.base_ns;
