-- The pipeline stage of each run.
-- 1. From its process groups (run_groups: Ascend profiler_metadata.json's parallel_group_info, Kineto
--    distributedInfo.pg_config): the group whose description names pipeline parallelism ('pp', Megatron's
--    PIPELINE_MODEL_PARALLEL_GROUP), the run's rank in it and its size. source 'process-group'.
-- 2. Else, for a run with pipeline send/receive kernels (_p2p_names: HCCL batchSendRecv / send / receive,
--    NCCL SendRecv, ...), from the order of its work, when its job says how many stages it has (p: the
--    pipeline_model_parallel_size of distributed_args in runs.metadata of the run or another run of its job
--    tag, else the size of a pipeline group of another of its runs). Megatron's 1F1B schedule runs
--    min(p - s - 1, m) warm-up forward micro-batches on stage s before the forward that precedes its first
--    backward, so k, the forward micro-batches before the first backward of a step, is p - s while k < m
--    (m: the step's forward micro-batches): s = p - k. Micro-batches are counted on the kernels' phases
--    (_phase, where the kernel's annotation, autograd frame or name gave it): a forward micro-batch starts
--    at a forward kernel after backward work or after a pipeline send/receive. k = m (every forward before
--    the first backward) leaves s anywhere in 0 .. p - m: known (0) only when m >= p. The step read is the
--    first one the capture holds whole: from the run's first forward kernel, or, when backward work comes
--    first (a capture that starts mid-step), from the first forward kernel after the optimizer work that
--    follows it, up to the optimizer work after its first backward. source 'send-recv-order'. An
--    interleaved (virtual) pipeline runs more warm-up forwards than there are stages (k > p): no stage is
--    read then.
-- 3. A run with pipeline send/receive kernels whose stage neither gives: stage NULL, source 'unknown', and
--    `why` says what is missing; never a guess. A job that says it has one stage (p = 1) is no pipeline, and
--    its send/receive kernels (an all-to-all NCCL runs as SendRecv) give no row.
-- Inputs: run_groups, runs, kernels, _passes, _phase (kernel_phases.sql: rows for training runs only),
--   _p2p_names (tracedb.engine.segmentation.phases.find_phases: the runs' pipeline send/receive names).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of a pipeline of 2 or more stages (by its process group) or with pipeline
--   send/receive kernels, in run_id order:
--   run_id INTEGER: the run
--   stage INTEGER: its stage, from 0; NULL when unknown
--   stages INTEGER: the pipeline's stages; NULL when unknown
--   ranks INTEGER[]: the pipeline group's global ranks; NULL without a process group
--   group_desc VARCHAR: the group's description; NULL without a process group
--   per_pass BIGINT: the anchors of its full passes (_passes.expected)
--   source VARCHAR: process-group | send-recv-order | unknown: where the stage comes from
--   why VARCHAR: what the stage rests on, or why it is unknown
WITH sel AS (
    SELECT unnest($run_ids)::INTEGER AS run_id
), pp_groups AS (
    SELECT g.*, regexp_matches(coalesce(g.group_desc, ''), '(?i)^pp$|pipeline') AS is_pp
    FROM run_groups g
), grouped AS (
    SELECT g.run_id, g.group_rank AS stage, g.group_size AS stages, g.ranks, g.group_desc
    FROM pp_groups g
    WHERE g.run_id IN (SELECT run_id FROM sel) AND g.is_pp AND g.group_size >= 2 AND g.group_rank IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY g.run_id ORDER BY g.group_name) = 1
), p2p AS (
    SELECT s.run_id FROM sel s
    WHERE s.run_id NOT IN (SELECT run_id FROM grouped)
      AND EXISTS (SELECT 1 FROM kernels k WHERE k.run_id = s.run_id AND k.name IN (SELECT name FROM _p2p_names))
), job_stages AS (
    -- what the run's job says of its stage count: distributed_args (Ascend profiler_metadata.json) of any of
    -- its runs, else a pipeline group any of them is in
    SELECT p.run_id,
        max(TRY_CAST(json_extract_string(o.metadata, '$.distributed_args.pipeline_model_parallel_size') AS INTEGER))
            AS from_args,
        (SELECT max(g.group_size) FROM pp_groups g WHERE g.is_pp AND g.run_id IN (
            SELECT j.run_id FROM runs j WHERE j.run_id = p.run_id
               OR (map_contains(r.tags, 'job') AND map_contains(j.tags, 'job') AND j.tags['job'] = r.tags['job'])))
            AS from_group
    FROM p2p p JOIN runs r ON r.run_id = p.run_id
    JOIN runs o ON o.run_id = r.run_id
        OR (map_contains(r.tags, 'job') AND map_contains(o.tags, 'job') AND o.tags['job'] = r.tags['job'])
    GROUP BY p.run_id, r.tags
), ordered AS (
    -- the phases of the run's kernels in time order, pipeline sends/receives marked; a kernel whose phase
    -- only the work around it gave (evidence 'order') is left out: the first GEMM of a backward pass, after
    -- the receive of its gradient, takes the forward's phase so (Megatron on Ascend, stage 0)
    SELECT ph.run_id, ph.seq, ph.start_ns, ph.phase, k.name IN (SELECT name FROM _p2p_names) AS p2p
    FROM _phase ph JOIN kernels k ON k.run_id = ph.run_id AND k.seq = ph.seq
    WHERE ph.run_id IN (SELECT run_id FROM p2p)
      AND (ph.evidence <> 'order' OR k.name IN (SELECT name FROM _p2p_names))
), marks AS (
    SELECT run_id,
        min(start_ns) FILTER (WHERE phase = 'backward' AND NOT p2p) AS first_bwd,
        min(start_ns) FILTER (WHERE phase = 'forward' AND NOT p2p) AS first_fwd
    FROM ordered GROUP BY run_id
), opened AS (
    -- where the step read starts: the run's first forward kernel, or after a leading backward's optimizer
    SELECT m.run_id,
        CASE WHEN m.first_fwd < m.first_bwd THEN m.first_fwd
             ELSE (SELECT min(o.start_ns) FROM ordered o WHERE o.run_id = m.run_id AND o.phase = 'forward'
                   AND NOT o.p2p AND o.start_ns > (SELECT min(q.start_ns) FROM ordered q WHERE q.run_id = m.run_id
                                                   AND q.phase = 'optimizer' AND q.start_ns > m.first_bwd)) END AS t0
    FROM marks m
), bounded AS (
    SELECT o.run_id, o.t0, b.t_bwd,
        coalesce((SELECT min(q.start_ns) FROM ordered q WHERE q.run_id = o.run_id AND q.phase = 'optimizer'
                  AND q.start_ns > b.t_bwd), 9223372036854775807) AS t_end
    FROM opened o
    CROSS JOIN LATERAL (SELECT min(q.start_ns) AS t_bwd FROM ordered q WHERE q.run_id = o.run_id
                        AND q.phase = 'backward' AND NOT q.p2p AND q.start_ns > o.t0) b
    WHERE o.t0 IS NOT NULL
), seen AS (
    SELECT o.run_id, o.seq, o.start_ns, o.phase, o.p2p, b.t_bwd,
        sum(o.p2p::INTEGER) OVER (PARTITION BY o.run_id ORDER BY o.start_ns, o.seq ROWS UNBOUNDED PRECEDING)
            AS p2p_seen
    FROM ordered o JOIN bounded b USING (run_id)
    WHERE o.start_ns >= b.t0 AND o.start_ns < b.t_end AND (o.p2p OR o.phase IN ('forward', 'backward'))
), work AS (
    SELECT *, lag(phase) OVER w AS prev_phase, lag(p2p_seen) OVER w AS prev_seen
    FROM seen WHERE NOT p2p
    WINDOW w AS (PARTITION BY run_id ORDER BY start_ns, seq)
), counted AS (
    -- a forward micro-batch starts at a forward kernel after backward work or after a pipeline send/receive
    SELECT run_id,
        count(*) FILTER (WHERE start_ns < coalesce(t_bwd, 9223372036854775807)) AS k,
        count(*) AS m, bool_or(t_bwd IS NOT NULL) AS has_bwd
    FROM work
    WHERE phase = 'forward' AND (prev_phase IS NULL OR prev_phase <> 'forward' OR p2p_seen > prev_seen)
    GROUP BY run_id
), read AS (
    SELECT p.run_id, coalesce(j.from_args, j.from_group) AS stages, c.k, c.m, c.has_bwd,
        p.run_id IN (SELECT run_id FROM _phase) AS training
    FROM p2p p LEFT JOIN job_stages j USING (run_id) LEFT JOIN counted c USING (run_id)
), placed AS (
    SELECT run_id, stages,
        CASE WHEN stages IS NULL OR NOT training OR NOT coalesce(has_bwd, false) OR k IS NULL OR k < 1
                  OR k > stages THEN NULL
             WHEN k < m OR m >= stages THEN stages - k END AS stage,
        CASE WHEN stages IS NULL THEN 'no pipeline process group, and the job''s metadata do not give '
                                      || 'pipeline_model_parallel_size'
             WHEN NOT training OR NOT coalesce(has_bwd, false)
                 THEN 'no pipeline process group, and no backward pass in the capture: the 1F1B order that tells '
                      || 'the stages apart is not there'
             WHEN k IS NULL OR k < 1 THEN 'no pipeline process group, and no forward micro-batch before the '
                                          || 'first backward in the capture'
             WHEN k > stages THEN 'no pipeline process group; ' || k || ' forward micro-batches before the first '
                                  || 'backward, more than the ' || stages || ' stages: not 1F1B (an interleaved '
                                  || 'schedule?)'
             WHEN k < m OR m >= stages THEN 'no pipeline process group; its send/receive order: ' || k || ' of '
                                            || m || ' forward micro-batches before the first backward, which '
                                            || '1F1B runs on stage stages - k' 
             ELSE 'no pipeline process group; all ' || m || ' forward micro-batches run before the first backward: '
                  || 'in 1F1B any stage from 0 to ' || (stages - m) END AS why
    FROM read
    WHERE stages IS NULL OR stages >= 2
)
SELECT g.run_id, g.stage, g.stages, g.ranks, g.group_desc,
    (SELECT max(p.expected) FROM _passes p WHERE p.run_id = g.run_id) AS per_pass,
    'process-group' AS source, 'its rank in process group ' || coalesce(g.group_desc, '?') AS why
FROM grouped g
UNION ALL
SELECT p.run_id, p.stage::INTEGER, p.stages::INTEGER, NULL::INTEGER[], NULL::VARCHAR,
    (SELECT max(q.expected) FROM _passes q WHERE q.run_id = p.run_id),
    CASE WHEN p.stage IS NULL THEN 'unknown' ELSE 'send-recv-order' END, p.why
FROM placed p
ORDER BY run_id;
