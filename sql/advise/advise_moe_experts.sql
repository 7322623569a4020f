-- Advise rule `moe-imbalance`, its evidence: each rank's expert work, in the units the trace records it.
-- Two sources:
-- 1. Expert GEMMs recognised by their shapes (kernel_work, flops_source 'moe gemm ...': vLLM / SGLang
--    fused_moe_kernel and AMD aiter's from the fused-experts op's hidden_states [T, K] and topk_ids [T, k];
--    Ascend's GroupedMatmul from x [M, K]): with the same weights on every rank, their FLOPs are proportional to
--    the tokens the router sent to the rank. An instance is the n-th expert GEMM of one kind (gate-up, down,
--    grouped) in a step.
-- 2. An expert-parallel layer's dispatch: the compute between one all-to-all of the rank and its next one (an
--    MoE layer dispatches its tokens to the experts' ranks by all-to-all, computes, and combines them back by
--    another). The experts' GEMMs there may be launched one by one (aten::mm per expert, MatMulV3): the
--    segment's compute is the rank's expert work. Its measure: the elements the opening all-to-all received
--    (c10d's Out msg nelems: the tokens routed to the rank, times the hidden size), else the segment's GEMM
--    FLOPs from their shapes (Ascend, a trace without c10d metadata). A segment holding an expert GEMM of
--    source 1 is left to it. The segment after a combine (attention, dense layers) has equal work on every
--    rank and shows no imbalance. An instance is the n-th segment of the opening all-to-all's process group in
--    a step.
-- A job: as rule slow-rank's (advise_slow_rank_candidates.sql): the runs sharing the tag job=..., or the selected
-- untagged runs when they look like one job's ranks.
-- Inputs: kernels, kernel_work, trace_events (extra_args: c10d's out_nelems), runs, _adv_act_step (each stepped
--   activity's step: breakdown_steps.sql's _bd_act), _adv_runs (advise_runs.sql), _coll_ops (collectives_ops.sql:
--   the runs' communication ops; may be empty).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _adv_moe_jobs, the selected runs of a job, one row each:
--   run_id INTEGER: the run
--   job VARCHAR: its job ('': the selected untagged runs)
-- Output: TEMP _adv_moe_kernels, one row per expert GEMM (source 1) or expert segment (source 2) of the runs'
--   jobs:
--   job VARCHAR: its job ('': the selected untagged runs)
--   run_id INTEGER: the run
--   step BIGINT: its step (-1: none)
--   grp VARCHAR: source 2: the opening all-to-all's process group; '' for source 1
--   source VARCHAR: kernel_work.flops_source (source 1: gate-up, down, grouped); source 2: 'all-to-all received'
--     (work: the elements received) or 'all-to-all segment GEMMs' (work: their FLOPs)
--   name VARCHAR: the kernel (source 2: the segment's GEMM of most time)
--   dur_ns BIGINT: its time (source 2: the summed time of the segment's compute kernels)
--   work BIGINT: its work: FLOPs, or the elements received (source 2 with c10d metadata)
--   nth BIGINT: its place among the run's expert GEMMs of its kind (segments of its group) in the step, from 1
CREATE OR REPLACE TEMP TABLE _adv_moe_jobs AS
WITH tagged AS (
    SELECT a.run_id, a.rank, r.world_size, coalesce(a.job, '') AS job
    FROM _adv_runs a JOIN runs r USING (run_id)
)
SELECT run_id, job FROM tagged
WHERE job <> ''
   OR (SELECT count(DISTINCT rank) = count(*) AND count(DISTINCT world_size) <= 1 FROM tagged WHERE job = '');
CREATE OR REPLACE TEMP TABLE _adv_moe_kernels AS
SELECT j.job, k.run_id, coalesce(s.step, -1) AS step, '' AS grp, w.flops_source AS source, k.name, k.dur_ns,
    w.flops AS work,
    row_number() OVER (PARTITION BY k.run_id, coalesce(s.step, -1), w.flops_source ORDER BY k.start_ns, k.seq) AS nth
FROM kernels k
JOIN kernel_work w ON w.run_id = k.run_id AND w.seq = k.seq
JOIN _adv_moe_jobs j ON j.run_id = k.run_id
LEFT JOIN _adv_act_step s ON s.run_id = k.run_id AND s.seq = k.seq
WHERE k.run_id IN (SELECT unnest($run_ids)) AND starts_with(w.flops_source, 'moe gemm') AND w.flops > 0;
INSERT INTO _adv_moe_kernels BY NAME
WITH a2a AS (
    -- each all-to-all of the runs with its step, and the start of the rank's next all-to-all in the same step
    SELECT o.run_id, o.kseq, o.grp, o.start_ns, o.end_ns, coalesce(s.step, -1) AS step,
        TRY_CAST(TRY_CAST(t.extra_args AS JSON) ->> 'out_nelems' AS BIGINT) AS recv,
        lead(o.start_ns) OVER (PARTITION BY o.run_id, coalesce(s.step, -1) ORDER BY o.start_ns, o.kseq) AS next_ns
    FROM _coll_ops o
    LEFT JOIN _adv_act_step s ON s.run_id = o.run_id AND s.seq = o.kseq
    LEFT JOIN trace_events t ON t.run_id = o.run_id AND t.seq = o.kseq AND t.extra_args IS NOT NULL
        AND t.kind IS NOT NULL AND t.kind <> 'npu_task'
    WHERE o.op LIKE 'alltoall%' AND o.kseq IS NOT NULL AND o.run_id IN (SELECT run_id FROM _adv_moe_jobs)
), seg AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, grp, step ORDER BY start_ns, kseq) AS nth
    FROM a2a WHERE next_ns IS NOT NULL
), compute AS (
    -- the rank's compute kernels (no communication op), each in the segment it starts in
    SELECT k.run_id, k.seq, k.name, k.start_ns, k.dur_ns, w.flops, w.flops_source
    FROM kernels k LEFT JOIN kernel_work w ON w.run_id = k.run_id AND w.seq = k.seq
    WHERE k.run_id IN (SELECT run_id FROM seg) AND k.kind = 'kernel'
      AND (k.run_id, k.seq) NOT IN (SELECT run_id, kseq FROM _coll_ops WHERE kseq IS NOT NULL)
), inside AS (
    SELECT g.run_id, g.kseq, c.name, c.dur_ns, c.flops, c.flops_source
    FROM seg g JOIN compute c ON c.run_id = g.run_id AND c.start_ns >= g.end_ns
        AND c.start_ns + c.dur_ns <= g.next_ns
), per_seg AS (
    SELECT run_id, kseq, sum(dur_ns)::BIGINT AS dur_ns,
        -- a GEMM's formula (kernel_work.flops_source 'gemm 2MNK ...')
        sum(flops) FILTER (WHERE starts_with(flops_source, 'gemm'))::BIGINT AS gemm_flops,
        arg_max(name, dur_ns) FILTER (WHERE starts_with(flops_source, 'gemm')) AS gemm,
        bool_or(starts_with(coalesce(flops_source, ''), 'moe gemm')) AS has_moe
    FROM inside GROUP BY run_id, kseq
)
SELECT j.job, g.run_id, g.step, g.grp,
    CASE WHEN g.recv > 0 THEN 'all-to-all received' ELSE 'all-to-all segment GEMMs' END AS source,
    coalesce(p.gemm, 'expert segment') AS name, p.dur_ns,
    CASE WHEN g.recv > 0 THEN g.recv ELSE p.gemm_flops END AS work, g.nth
FROM seg g JOIN per_seg p USING (run_id, kseq) JOIN _adv_moe_jobs j USING (run_id)
WHERE NOT p.has_moe AND (g.recv > 0 OR p.gemm_flops > 0);
