-- Advise rule `moe-imbalance`: a rank of an expert-parallel job whose MoE expert GEMMs get markedly more routed
-- tokens than the other ranks' same GEMMs, so that the others wait for it at the layer's next collective.
-- The work of an expert GEMM comes from its shapes (kernel_work, flops_source 'moe gemm ...': vLLM / SGLang
-- fused_moe_kernel and AMD aiter's from the fused-experts op's hidden_states [T, K] and topk_ids [T, k];
-- Ascend's GroupedMatmul from x [M, K]): with the same weights on every rank, its FLOPs are proportional to the
-- tokens the router sent to the rank. An instance is the n-th expert GEMM of one kind (gate-up, down, grouped) in
-- a step on each rank of the job (every rank must have it); the instance's heaviest rank is the one of most work.
-- Trigger: at an instance, the heaviest rank's work exceeds the median rank's by at least $min_excess_pct %;
-- the instances a rank is heaviest in are its finding when their time at stake is at least $min_pct % of the
-- other ranks' step time.
-- Threshold source: 20 %: a balanced router's per-rank token counts spread as a binomial, ~1/sqrt(n) (1.6 % at
-- 4,096 routed tokens a rank), so 20 % is no routing noise at training and prefill sizes; 1 %, as
-- rules sync-in-step and pageable-copy: balanced layers have no such instance, so the time is this rule's alone.
-- At stake: per imbalanced instance, the other ranks' wait for its slowest member, sum over ranks of (the
-- longest member's time - the rank's own): what balancing the routing (to the mean) would take off the ranks'
-- steps; summed over the instances the rank is heaviest in.
-- Limits: expert GEMMs whose shapes the trace does not record (no record_shapes; a fused MoE kernel without its
-- op; Ascend rows without Input Shapes) have no work: silent. One run alone has no other rank to compare: silent.
-- Imbalance among the experts of one rank (sequential expert GEMMs) costs no waiting and is not judged.
-- A job: as rule slow-rank's (advise_slow_rank_candidates.sql): the runs sharing the tag job=..., or the selected
-- untagged runs when they look like one job's ranks.
-- Inputs: kernels, kernel_work, runs, _adv_act_step (each stepped activity's step: breakdown_steps.sql's _bd_act),
--   _adv_runs (advise_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $min_excess_pct DOUBLE: the least excess of the heaviest rank's work over the median rank's, %
--   $min_pct DOUBLE: the least share of the other ranks' step time, %
-- Output: TEMP _adv_moe_kernels, one row per expert GEMM of the runs' jobs:
--   job VARCHAR: its job ('': the selected untagged runs)
--   run_id INTEGER: the run
--   step BIGINT: its step (-1: none)
--   source VARCHAR: its kind (kernel_work.flops_source: gate-up, down, grouped)
--   name VARCHAR: the kernel
--   dur_ns BIGINT: its time
--   flops BIGINT: its work
--   nth BIGINT: its place among the run's expert GEMMs of its kind in the step, from 1
-- Output: TEMP _adv_moe, one row per instance (job, step, source, nth) every rank of the job has:
--   job VARCHAR: the job
--   step BIGINT: the step (-1: none)
--   source VARCHAR: the kind of expert GEMM
--   nth BIGINT: its place in the step
--   members BIGINT: the ranks
--   med_flops BIGINT: the median rank's work (the lower middle value)
--   max_flops BIGINT: the most work
--   heavy_run INTEGER: the run of most work (the lowest run id of equals)
--   med_dur BIGINT: the median rank's time
--   waited_ns BIGINT: sum over the ranks of (the longest time - the rank's own)
--   excess_pct DOUBLE: (max_flops - med_flops) / med_flops, %
--   imbalanced BOOLEAN: excess_pct >= $min_excess_pct
-- Output: TEMP _adv_moe_excess, one row per (run, step) that is heaviest at an imbalanced instance, for rule
--   slow-rank, which leaves this time out of a rank's computing (a rank slow for its tokens is not a slow rank):
--   run_id INTEGER: the run
--   step BIGINT: the step (-1: no step)
--   excess_ns BIGINT: its expert GEMMs' time over the median rank's at those instances
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per heaviest rank over the threshold:
--   rule VARCHAR: moe-imbalance
--   run_id INTEGER: the heaviest rank's run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the expert GEMM with the most time at stake
--   at_stake_ns BIGINT: the other ranks' wait at its instances
--   base_ns BIGINT: the other ranks' step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the three most imbalanced instances, and the report commands
CREATE OR REPLACE TEMP TABLE _adv_moe_kernels AS
WITH tagged AS (
    SELECT a.run_id, a.rank, r.world_size, coalesce(a.job, '') AS job
    FROM _adv_runs a JOIN runs r USING (run_id)
), jobs AS (
    SELECT run_id, job FROM tagged
    WHERE job <> ''
       OR (SELECT count(DISTINCT rank) = count(*) AND count(DISTINCT world_size) <= 1 FROM tagged WHERE job = '')
)
SELECT j.job, k.run_id, coalesce(s.step, -1) AS step, w.flops_source AS source, k.name, k.dur_ns, w.flops,
    row_number() OVER (PARTITION BY k.run_id, coalesce(s.step, -1), w.flops_source ORDER BY k.start_ns, k.seq) AS nth
FROM kernels k
JOIN kernel_work w ON w.run_id = k.run_id AND w.seq = k.seq
JOIN jobs j ON j.run_id = k.run_id
LEFT JOIN _adv_act_step s ON s.run_id = k.run_id AND s.seq = k.seq
WHERE k.run_id IN (SELECT unnest($run_ids)) AND starts_with(w.flops_source, 'moe gemm') AND w.flops > 0;
CREATE OR REPLACE TEMP TABLE _adv_moe AS
WITH sizes AS (
    SELECT job, count(DISTINCT run_id) AS ranks FROM _adv_moe_kernels GROUP BY job
), inst AS (
    SELECT e.job, e.step, e.source, e.nth, count(*) AS members,
        list_sort(list(e.flops))[(count(*) + 1) // 2] AS med_flops, max(e.flops) AS max_flops,
        arg_max(e.run_id, (e.flops, -e.run_id)) AS heavy_run,
        list_sort(list(e.dur_ns))[(count(*) + 1) // 2] AS med_dur,
        (count(*) * max(e.dur_ns) - sum(e.dur_ns))::BIGINT AS waited_ns
    FROM _adv_moe_kernels e JOIN sizes z USING (job)
    WHERE z.ranks >= 2
    GROUP BY e.job, e.step, e.source, e.nth, z.ranks
    HAVING count(*) = z.ranks
)
SELECT i.*, 100.0 * (i.max_flops - i.med_flops) / i.med_flops AS excess_pct,
    100.0 * (i.max_flops - i.med_flops) >= $min_excess_pct * i.med_flops AS imbalanced
FROM inst i WHERE i.med_flops > 0;
CREATE OR REPLACE TEMP TABLE _adv_moe_excess AS
SELECT e.run_id, e.step, sum(greatest(e.dur_ns - i.med_dur, 0))::BIGINT AS excess_ns
FROM _adv_moe i
JOIN _adv_moe_kernels e ON e.job = i.job AND e.step = i.step AND e.source = i.source AND e.nth = i.nth
WHERE i.imbalanced AND e.flops > i.med_flops
GROUP BY e.run_id, e.step;
INSERT INTO _adv_findings BY NAME
WITH heavy AS (
    SELECT i.job, i.heavy_run AS run_id, count(*) AS n, sum(i.waited_ns)::BIGINT AS waited_ns,
        round(avg(i.excess_pct), 1) AS excess_pct,
        (SELECT count(*) FROM _adv_moe a WHERE a.job = i.job) AS all_n
    FROM _adv_moe i WHERE i.imbalanced GROUP BY i.job, i.heavy_run
), named AS (
    -- the expert GEMM of most time at stake
    SELECT i.heavy_run AS run_id, arg_max(e.name, i.waited_ns) AS kernel
    FROM _adv_moe i
    JOIN _adv_moe_kernels e ON e.job = i.job AND e.step = i.step AND e.source = i.source AND e.nth = i.nth
     AND e.run_id = i.heavy_run
    WHERE i.imbalanced GROUP BY i.heavy_run
), worst AS (
    -- the most imbalanced instances of the rank, each named by its step and its place among the step's expert
    -- GEMMs of its kind: the MoE layers where the router sent it the most
    SELECT heavy_run AS run_id,
        string_agg(CASE WHEN step >= 0 THEN 'step ' || step || ', ' ELSE '' END
                   || CASE WHEN source LIKE 'moe gemm gate-up%' THEN 'gate-up '
                           WHEN source LIKE 'moe gemm down%' THEN 'down ' ELSE '' END || 'expert GEMM #' || nth || ': +'
                   || CAST(round(excess_pct, 1)::DECIMAL(9, 1) AS VARCHAR) || ' %', '; '
                   ORDER BY excess_pct DESC, step, source, nth) FILTER (WHERE place <= 3) AS shown
    FROM (SELECT *, row_number() OVER (PARTITION BY heavy_run ORDER BY excess_pct DESC, step, source, nth) AS place
          FROM _adv_moe WHERE imbalanced)
    GROUP BY heavy_run
), others AS (
    SELECT h.run_id, sum(o.base_ns) FILTER (WHERE o.run_id <> h.run_id)::BIGINT AS base_ns,
        coalesce(' --tag job=' || adv_word(nullif(h.job, '')),
                 string_agg(' --run ' || adv_word(o.run), '' ORDER BY o.run_id)) AS job_args
    FROM heavy h
    JOIN _adv_runs o ON o.run_id IN (SELECT run_id FROM _adv_moe_kernels e WHERE e.job = h.job)
    GROUP BY h.run_id, h.job
)
SELECT 'moe-imbalance' AS rule, h.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer, n.kernel,
    h.waited_ns AS at_stake_ns, o.base_ns,
    'rank ' || coalesce(CAST(r.rank AS VARCHAR), '?') || '''s experts get '
        || CAST(h.excess_pct::DECIMAL(9, 1) AS VARCHAR) || ' % more routed tokens than the median rank''s in '
        || h.n || ' of ' || h.all_n || ' expert GEMMs; the other ranks waited ' || CAST(us(h.waited_ns) AS VARCHAR)
        || ' us for them' AS finding,
    'the most imbalanced (the n-th expert GEMM of its kind in the step: its MoE layer): ' || w.shown
        || '; expert GEMM work (FLOPs from their shapes) and time per rank: tracedb report roofline '
        || replace(r.cmd, ' --run ' || adv_word(r.run), '') || o.job_args || ' --by kernel; who waited for whom: '
        || 'tracedb report blame ' || replace(r.cmd, ' --run ' || adv_word(r.run), '') || o.job_args AS evidence
FROM heavy h
JOIN _adv_runs r USING (run_id)
JOIN others o USING (run_id)
JOIN worst w USING (run_id)
LEFT JOIN named n USING (run_id)
WHERE 100.0 * h.waited_ns >= $min_pct * o.base_ns;
