-- Advise rule `slow-rank`, its candidates: a rank of a job (two or more ranks) that computes markedly longer
-- than the median rank, and does so step after step.
-- Trigger: a rank's computing time (report breakdown's computing: the union of its compute kernels'
-- intervals), summed over the steps every rank of the job has (over the whole run without steps), exceeds
-- the median rank's by at least $min_excess_pct %, AND the rank is the slowest of the job in more than half of
-- those steps (recurring, not one bad step).
-- Threshold source: 5 %, report ranks' straggler skew (engine/jobs/ranks.py MIN_SKEW): ranks that run the same
-- kernels differ by 0.3-1.5 % (docs/ranks.md).
-- A job: the runs that share the tag job=...; the selected runs without the tag are one only when they look like
-- one job's ranks (each a known rank, no two the same, one world size): unrelated runs of a store (two models,
-- two machines) are no job, and the slowest of them is no slow rank. Only ranks with computing are compared:
-- kernel rows, or an Ascend rank folder without kernels whose step_trace_time.csv gives its Computing (report
-- breakdown's source step_trace_time: the Megatron job's ranks 1 and 3).
-- A rank's MoE expert GEMMs' excess at the instances where the router gave it more tokens (_adv_moe_excess, rule
-- moe-imbalance) is left out of its computing: that rank is slow for its load, not for itself.
-- Inputs: _adv_bd_run, _adv_bd_step (copies of breakdown_union.sql's _bd_units by run and by step), runs, kernels,
--   step_times, _adv_moe_excess (advise_moe_imbalance.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $min_excess_pct DOUBLE: the least excess over the median rank's compute, %
-- Output: TEMP _adv_slow_cand, one row per candidate rank:
--   job VARCHAR: its job (the tag job, else NULL: the selected runs)
--   run_id INTEGER: the run
--   ranks BIGINT: the job's ranks
--   units BIGINT: the steps compared (1: the whole run, without steps)
--   slowest_in BIGINT: the steps in which it computed longest
--   compute_ns BIGINT: its computing time over those steps
--   median_ns BIGINT: the median rank's (the lower middle value)
--   excess_ns BIGINT: compute_ns - median_ns
CREATE OR REPLACE TEMP TABLE _adv_slow_cand AS
WITH with_kernels AS (
    SELECT DISTINCT run_id FROM kernels WHERE kind = 'kernel' AND run_id IN (SELECT unnest($run_ids))
), bd_step AS (
    -- a run's computing per step: report breakdown's, or (no kernel rows) its profiler's step_trace_time.csv
    SELECT b.run_id, b.step, b.computing_ns - coalesce(m.excess_ns, 0) AS computing_ns
    FROM _adv_bd_step b LEFT JOIN _adv_moe_excess m ON m.run_id = b.run_id AND m.step = b.step
    WHERE b.run_id IN (SELECT run_id FROM with_kernels)
    UNION ALL
    SELECT run_id, step, sum(computing_ns)::BIGINT FROM step_times
    WHERE run_id IN (SELECT unnest($run_ids)) AND run_id NOT IN (SELECT run_id FROM with_kernels)
      AND step IS NOT NULL AND computing_ns IS NOT NULL
    GROUP BY run_id, step
), bd_run AS (
    SELECT b.run_id, b.computing_ns - coalesce((SELECT sum(m.excess_ns) FROM _adv_moe_excess m
                                                 WHERE m.run_id = b.run_id), 0)::BIGINT AS computing_ns
    FROM _adv_bd_run b WHERE b.run_id IN (SELECT run_id FROM with_kernels)
    UNION ALL
    SELECT run_id, sum(computing_ns)::BIGINT FROM step_times
    WHERE run_id IN (SELECT unnest($run_ids)) AND run_id NOT IN (SELECT run_id FROM with_kernels)
      AND computing_ns IS NOT NULL
    GROUP BY run_id
), tagged AS (
    SELECT run_id, rank, world_size, coalesce(list_extract(map_extract(tags, 'job'), 1), '') AS job
    FROM runs WHERE run_id IN (SELECT unnest($run_ids))
      AND run_id IN (SELECT run_id FROM with_kernels UNION SELECT run_id FROM bd_run WHERE computing_ns > 0)
), jobs AS (
    SELECT run_id, job FROM tagged
    WHERE job <> ''
       OR (SELECT count(DISTINCT rank) = count(*) AND count(DISTINCT world_size) <= 1 FROM tagged WHERE job = '')
), by_step AS (
    -- the jobs every rank of which has steps
    SELECT j.job FROM jobs j LEFT JOIN (SELECT DISTINCT run_id FROM bd_step) s USING (run_id)
    GROUP BY j.job HAVING count(s.run_id) = count(*)
), units AS (
    SELECT j.job, u.run_id, u.step, u.computing_ns FROM bd_step u JOIN jobs j USING (run_id)
    WHERE j.job IN (SELECT job FROM by_step)
    UNION ALL
    SELECT j.job, u.run_id, -1 AS step, u.computing_ns FROM bd_run u JOIN jobs j USING (run_id)
    WHERE j.job NOT IN (SELECT job FROM by_step)
), sizes AS (
    SELECT job, count(*) AS ranks FROM jobs GROUP BY job
), kept AS (
    -- the steps every rank of the job has
    SELECT u.* FROM units u JOIN sizes z USING (job)
    QUALIFY count(*) OVER (PARTITION BY u.job, u.step) = z.ranks
), slowest AS (
    SELECT job, step, arg_max(run_id, (computing_ns, -run_id)) AS run_id FROM kept GROUP BY job, step
), per_rank AS (
    SELECT k.job, k.run_id, sum(k.computing_ns)::BIGINT AS compute_ns, count(*) AS units,
        (SELECT count(*) FROM slowest s WHERE s.job = k.job AND s.run_id = k.run_id) AS slowest_in
    FROM kept k GROUP BY k.job, k.run_id
), med AS (
    SELECT job, count(*) AS ranks, list_sort(list(compute_ns))[(count(*) + 1) // 2] AS median_ns
    FROM per_rank GROUP BY job
)
SELECT nullif(p.job, '') AS job, p.run_id, m.ranks, p.units, p.slowest_in, p.compute_ns, m.median_ns,
    p.compute_ns - m.median_ns AS excess_ns
FROM per_rank p JOIN med m USING (job)
WHERE m.ranks >= 2 AND m.median_ns > 0 AND 100.0 * (p.compute_ns - m.median_ns) >= $min_excess_pct * m.median_ns
  AND 2 * p.slowest_in > p.units;
