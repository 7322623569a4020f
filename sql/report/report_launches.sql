-- Report `launches`, --by run, step, pass or layer: the host-side cost of each unit's kernels and
-- communication ops (those report breakdown counts) and its idle time split by cause (launches_gaps.sql).
-- free = host_bound_idle + other_idle + unknown_idle = span - union of the unit's intervals, breakdown's
-- free_us for the same unit. delay is kernel start - launch call start, exact ns; its quantiles are
-- nearest-rank: quantile_disc with a DECIMAL fraction gives the ceil(q x n)-th smallest delay, by exact
-- integer arithmetic (never an interpolated value).
-- Inputs: _la_act, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per unit:
--   run VARCHAR: the run's name
--   step BIGINT: the profiler step (--by step), else NULL
--   pass BIGINT: the pass (--by pass, layer), else NULL
--   layer BIGINT: the layer (--by layer; NULL with a pass: the prologue or epilogue), else NULL
--   kernels BIGINT: kernels and communication ops of the unit
--   launched BIGINT: those whose launch call is in the trace
--   launch_calls BIGINT: distinct launch calls of those (a graph launch is one call for many kernels)
--   launch_us DECIMAL(38,3): total duration of those calls, each counted once
--   delay_p50_us DECIMAL(23,3): median of kernel start - launch call start
--   delay_p95_us DECIMAL(23,3): its 95th percentile
--   delay_max_us DECIMAL(23,3): its maximum
--   span_us DECIMAL(23,3): first start to last end of the unit's activities
--   free_us DECIMAL(38,3): idle time inside the span: the sum of the gaps
--   host_bound_idle_us DECIMAL(38,3): idle before the launch call of the kernel ending the gap had started
--   other_idle_us DECIMAL(38,3): idle after that launch call had started
--   unknown_idle_us DECIMAL(38,3): gaps ended by a kernel without a launch call in the trace
--   gaps BIGINT: idle gaps
--   host_bound_gaps BIGINT: gaps with a host-bound part
--   unit VARCHAR: --by layer: prologue | layer | epilogue; else NULL
WITH firsts AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, step, pass, layer, unit, call_seq ORDER BY seq) = 1 AS first_of_call
    FROM _la_act
)
SELECT r.name AS run, a.step, a.pass, a.layer, count(*) AS kernels, count(a.call_seq) AS launched,
    count(*) FILTER (WHERE a.first_of_call AND a.call_seq IS NOT NULL) AS launch_calls,
    us(coalesce(sum(a.call_dur_ns) FILTER (WHERE a.first_of_call AND a.call_seq IS NOT NULL), 0)) AS launch_us,
    us(quantile_disc(a.s - a.call_ns, 0.5)) AS delay_p50_us,
    us(quantile_disc(a.s - a.call_ns, 0.95)) AS delay_p95_us,
    us(max(a.s - a.call_ns)) AS delay_max_us,
    us(max(a.e) - min(a.s)) AS span_us,
    us(sum(a.gap_ns)) AS free_us,
    us(sum(a.host_bound_ns)) AS host_bound_idle_us,
    us(sum(a.other_ns)) AS other_idle_us,
    us(sum(a.unknown_ns)) AS unknown_idle_us,
    count(*) FILTER (WHERE a.gap_ns > 0) AS gaps,
    count(*) FILTER (WHERE a.host_bound_ns > 0) AS host_bound_gaps, a.unit
FROM firsts a JOIN runs r USING (run_id)
GROUP BY a.run_id, r.name, a.step, a.pass, a.layer, a.unit
ORDER BY list_position($run_ids, a.run_id), a.step, a.pass, a.unit IS NOT DISTINCT FROM 'epilogue', a.layer NULLS FIRST;
