-- Advise rule `moe-imbalance`: a rank of an expert-parallel job whose MoE experts get markedly more routed
-- tokens than the other ranks' same experts, so that the others wait for it at the layer's next collective.
-- Each rank's expert work (advise_moe_experts.sql): the expert GEMMs recognised by their shapes (FLOPs), or the
-- compute of an MoE layer between its dispatch and combine all-to-alls (the elements the dispatch received, else
-- the GEMM FLOPs there). An instance is the n-th expert GEMM of one kind (the n-th such segment of a process
-- group) in a step on each rank of the job (or group) that has any (every such rank must have it); the
-- instance's heaviest rank is the one of most work.
-- Trigger: at an instance, the heaviest rank's work exceeds the median rank's by at least $min_excess_pct %;
-- the instances a rank is heaviest in are its finding when their time at stake is at least $min_pct % of the
-- other ranks' step time.
-- Threshold source: 20 %: a balanced router's per-rank token counts spread as a binomial, ~1/sqrt(n) (1.6 % at
-- 4,096 routed tokens a rank), so 20 % is no routing noise at training and prefill sizes; 1 %, as
-- rules sync-in-step and pageable-copy: balanced layers have no such instance, so the time is this rule's alone.
-- At stake: per imbalanced instance, the other ranks' wait for its slowest member, sum over ranks of (the
-- longest member's time - the rank's own): what balancing the routing (to the mean) would take off the ranks'
-- steps; summed over the instances the rank is heaviest in.
-- Limits: expert GEMMs whose shapes the trace does not record and no all-to-all with c10d's sizes around them
-- (no record_shapes; a fused MoE kernel without its op; Ascend rows without Input Shapes): silent. An
-- all-to-all without c10d metadata (an NCCL SendRecv kernel alone) is not told from pipeline sends. One run
-- alone has no other rank to compare: silent. Imbalance among the experts of one rank (sequential expert
-- GEMMs) costs no waiting and is not judged.
-- Inputs: _adv_moe_kernels (advise_moe_experts.sql), _adv_runs (advise_runs.sql).
-- Parameters:
--   $min_excess_pct DOUBLE: the least excess of the heaviest rank's work over the median rank's, %
--   $min_pct DOUBLE: the least share of the other ranks' step time, %
-- Output: TEMP _adv_moe, one row per instance (job, group, step, source, nth) every rank of it has:
--   job VARCHAR: the job
--   grp VARCHAR: the all-to-alls' process group ('': expert GEMMs by their shapes)
--   step BIGINT: the step (-1: none)
--   source VARCHAR: the kind of expert work (_adv_moe_kernels.source)
--   nth BIGINT: its place in the step
--   members BIGINT: the ranks
--   med_work BIGINT: the median rank's work (the lower middle value)
--   max_work BIGINT: the most work
--   heavy_run INTEGER: the run of most work (the lowest run id of equals)
--   med_dur BIGINT: the median rank's time
--   waited_ns BIGINT: sum over the ranks of (the longest time - the rank's own)
--   excess_pct DOUBLE: (max_work - med_work) / med_work, %
--   imbalanced BOOLEAN: excess_pct >= $min_excess_pct
-- Output: TEMP _adv_moe_excess, one row per (run, step) that is heaviest at an imbalanced instance, for rule
--   slow-rank, which leaves this time out of a rank's computing (a rank slow for its tokens is not a slow rank):
--   run_id INTEGER: the run
--   step BIGINT: the step (-1: no step)
--   excess_ns BIGINT: its expert work's time over the median rank's at those instances
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
CREATE OR REPLACE TEMP TABLE _adv_moe AS
WITH sizes AS (
    SELECT job, grp, count(DISTINCT run_id) AS ranks FROM _adv_moe_kernels GROUP BY job, grp
), inst AS (
    SELECT e.job, e.grp, e.step, e.source, e.nth, count(*) AS members,
        list_sort(list(e.work))[(count(*) + 1) // 2] AS med_work, max(e.work) AS max_work,
        arg_max(e.run_id, (e.work, -e.run_id)) AS heavy_run,
        list_sort(list(e.dur_ns))[(count(*) + 1) // 2] AS med_dur,
        (count(*) * max(e.dur_ns) - sum(e.dur_ns))::BIGINT AS waited_ns
    FROM _adv_moe_kernels e JOIN sizes z USING (job, grp)
    WHERE z.ranks >= 2
    GROUP BY e.job, e.grp, e.step, e.source, e.nth, z.ranks
    HAVING count(*) = z.ranks
)
SELECT i.*, 100.0 * (i.max_work - i.med_work) / i.med_work AS excess_pct,
    100.0 * (i.max_work - i.med_work) >= $min_excess_pct * i.med_work AS imbalanced
FROM inst i WHERE i.med_work > 0;
CREATE OR REPLACE TEMP TABLE _adv_moe_excess AS
SELECT e.run_id, e.step, sum(greatest(e.dur_ns - i.med_dur, 0))::BIGINT AS excess_ns
FROM _adv_moe i
JOIN _adv_moe_kernels e ON e.job = i.job AND e.grp = i.grp AND e.step = i.step AND e.source = i.source
    AND e.nth = i.nth
WHERE i.imbalanced AND e.work > i.med_work
GROUP BY e.run_id, e.step;
INSERT INTO _adv_findings BY NAME
WITH heavy AS (
    SELECT i.job, i.heavy_run AS run_id, count(*) AS n, sum(i.waited_ns)::BIGINT AS waited_ns,
        round(avg(i.excess_pct), 1) AS excess_pct,
        -- the rank's imbalanced instances are all stretches between all-to-alls, or not
        bool_and(starts_with(i.source, 'all-to-all')) AS segments,
        bool_or(i.source = 'all-to-all received') AS by_size,
        (SELECT count(*) FROM _adv_moe a WHERE a.job = i.job
            AND starts_with(a.source, 'all-to-all') = bool_and(starts_with(i.source, 'all-to-all'))) AS all_n
    FROM _adv_moe i WHERE i.imbalanced GROUP BY i.job, i.heavy_run
), named AS (
    -- the expert GEMM of most time at stake
    SELECT i.heavy_run AS run_id, arg_max(e.name, i.waited_ns) AS kernel
    FROM _adv_moe i
    JOIN _adv_moe_kernels e ON e.job = i.job AND e.grp = i.grp AND e.step = i.step AND e.source = i.source
        AND e.nth = i.nth AND e.run_id = i.heavy_run
    WHERE i.imbalanced GROUP BY i.heavy_run
), worst AS (
    -- the most imbalanced instances of the rank, each named by its step and its place among the step's expert
    -- GEMMs of its kind (stretches between all-to-alls of its group): the MoE layers where the router sent it the
    -- most
    SELECT heavy_run AS run_id,
        string_agg(CASE WHEN step >= 0 THEN 'step ' || step || ', ' ELSE '' END
                   || CASE WHEN source LIKE 'moe gemm gate-up%' THEN 'gate-up expert GEMM #'
                           WHEN source LIKE 'moe gemm down%' THEN 'down expert GEMM #'
                           WHEN starts_with(source, 'all-to-all') THEN 'group ' || grp || ' all-to-all stretch #'
                           ELSE 'expert GEMM #' END || nth || ': +'
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
        || h.n || ' of ' || h.all_n
        || CASE WHEN h.segments THEN ' stretches between all-to-alls (an MoE layer''s expert compute, after its '
                                     || 'dispatch)' ELSE ' expert GEMMs' END
        || '; the other ranks waited ' || CAST(us(h.waited_ns) AS VARCHAR) || ' us for them' AS finding,
    CASE WHEN h.segments THEN 'the most imbalanced (the n-th stretch from an all-to-all to the next in the step; '
                              || CASE WHEN h.by_size THEN 'work: the elements the all-to-all received, c10d''s '
                                                          || 'Out msg nelems in trace_events.extra_args'
                                      ELSE 'work: the GEMM FLOPs in it, from their shapes' END || '): '
         ELSE 'the most imbalanced (the n-th expert GEMM of its kind in the step: its MoE layer): ' END || w.shown
        || '; GEMM work (FLOPs from their shapes) and time per rank: tracedb report roofline '
        || replace(r.cmd, ' --run ' || adv_word(r.run), '') || o.job_args || ' --by kernel; who waited for whom: '
        || 'tracedb report blame ' || replace(r.cmd, ' --run ' || adv_word(r.run), '') || o.job_args AS evidence
FROM heavy h
JOIN _adv_runs r USING (run_id)
JOIN others o USING (run_id)
JOIN worst w USING (run_id)
LEFT JOIN named n USING (run_id)
WHERE 100.0 * h.waited_ns >= $min_pct * o.base_ns;
