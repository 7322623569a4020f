-- The step, micro-batch and serving step of every pass (after segment_passes.sql).
-- Step: the kernel's Step Id (Ascend), else the ProfilerStep#N around the launch of the pass's first anchor
--   (torch.profiler's prof.step(); the GPU-side copy, gpu_user_annotation, around the anchor itself when
--   the launch is not in the trace), else the serving step annotation around that launch (numbered from
--   0 in time order), else in a training run the count of optimizer steps before the pass, else, in a run
--   with none of these, the pass itself (inference: one pass a step); NULL for a pass outside the marks of
--   a run that has them (a capture that starts mid-step).
-- Micro-batch: the pass's position among the passes of its step (from 0).
-- Serving step: the innermost annotation around the launch of the pass's first anchor that names one:
--   SGLang  step[EXTEND bs=15 toks=15360], step[DECODE bs=32], step[MIXED bs=.. toks=..] (prefill, decode,
--           mixed; requests = bs; tokens = toks, for a decode step bs: one token per request)
--   vLLM    execute_<tokens>_context_<n>(...)_generation_<m>(...): tokens; requests n + m
--   vLLM (older) execute_context_<n>(<tokens>_<sum of squares>)_generation_<m>(<tokens>_<sum of squares>),
--           the sum of squares absent when a side is empty (execute_context_1(888_788544)_generation_0(0)):
--           tokens are the two token counts added; requests n + m
--   with n = 0 decode, m = 0 prefill, else mixed. The host-side annotation around the launch comes first;
--   the GPU-side copy (gpu_user_annotation) around the anchor itself stands in when the host side has none.
--   Without one, the attention kernels from the pass's first anchor to its last say prefill or decode where
--   their names differ (FlashInfer / CK BatchPrefill vs BatchDecode, vLLM's 3d unified attention runs decode
--   batches only); both kinds in one pass: mixed. A training run's passes are train.
-- Inputs: _passes, _anchor_pass (anchor_breaks.sql's after_optimizer), kernels, host_events, _stream_runs, _cats
--   (categories.sql: the attention kernels' names).
-- Parameters: none.
-- Output: TEMP _pass_info, one row per row of _passes:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   step BIGINT: its step; NULL when unknown
--   step_from VARCHAR: step-id | profiler-step | annotation | optimizer | pass: where the step came from
--   microbatch BIGINT: its position among its step's passes, from 0; NULL without a step
--   step_kind VARCHAR: prefill | decode | mixed | train; NULL when unknown
--   kind_from VARCHAR: annotation | kernel-names | training; NULL when unknown
--   tokens BIGINT: tokens of the serving step; NULL when unknown
--   requests BIGINT: requests of the serving step (context + generation); NULL when unknown
--   annotation VARCHAR: the serving step annotation; NULL without one
CREATE OR REPLACE TEMP TABLE _pass_info AS
WITH firsts AS (
    SELECT a.run_id, a.pass, k.seq, k.start_ns, k.step_id, k.correlation_id,
        (sum(a.after_optimizer::INTEGER) OVER (PARTITION BY a.run_id ORDER BY a.pass))::BIGINT AS opt_steps
    FROM _anchor_pass a JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
    WHERE a.k = 0
), launched AS (
    SELECT f.*, l.call_ns AS t
    FROM firsts f LEFT JOIN launches_of('firsts') l USING (run_id, correlation_id)
), marks AS (
    SELECT run_id, start_ns, start_ns + dur_ns AS end_ns, name, cat
    FROM host_events
    WHERE run_id IN (SELECT run_id FROM _passes)
      AND cat IN ('user_annotation', 'gpu_user_annotation', 'cpu_op')
      AND step_mark(name)
), profiler_step AS (
    SELECT l.run_id, l.pass,
        max(CAST(regexp_extract(m.name, '#(\d+)$', 1) AS BIGINT)) FILTER (WHERE m.cat <> 'gpu_user_annotation'
            AND l.t >= m.start_ns AND l.t < m.end_ns) AS host_step,
        max(CAST(regexp_extract(m.name, '#(\d+)$', 1) AS BIGINT)) FILTER (WHERE m.cat = 'gpu_user_annotation'
            AND l.start_ns >= m.start_ns AND l.start_ns < m.end_ns) AS device_step
    FROM launched l JOIN marks m ON m.run_id = l.run_id AND starts_with(m.name, 'ProfilerStep#')
    GROUP BY ALL
), serving_host AS (
    SELECT l.run_id, l.pass, arg_max(m.name, m.start_ns) AS annotation, arg_max(m.start_ns, m.start_ns) AS ann_start
    FROM launched l JOIN marks m ON m.run_id = l.run_id AND NOT starts_with(m.name, 'ProfilerStep#')
     AND m.cat <> 'gpu_user_annotation' AND l.t >= m.start_ns AND l.t < m.end_ns
    GROUP BY ALL
), serving_device AS (
    -- the GPU-side copy around the anchor itself, for a trace whose host side lacks the launch or the
    -- annotation (a capture that keeps only the device timeline)
    SELECT l.run_id, l.pass, arg_max(m.name, m.start_ns) AS annotation, arg_max(m.start_ns, m.start_ns) AS ann_start
    FROM launched l JOIN marks m ON m.run_id = l.run_id AND NOT starts_with(m.name, 'ProfilerStep#')
     AND m.cat = 'gpu_user_annotation' AND l.start_ns >= m.start_ns AND l.start_ns < m.end_ns
    GROUP BY ALL
), serving AS (
    SELECT * FROM serving_host
    UNION ALL
    SELECT * FROM serving_device d WHERE NOT EXISTS (SELECT 1 FROM serving_host h WHERE h.run_id = d.run_id AND h.pass = d.pass)
), parsed AS (
    SELECT run_id, pass, annotation, ann_start,
        regexp_extract(annotation, '^step\[([A-Z]+) bs=(\d+)(?: toks=(\d+))?', ['kind', 'bs', 'toks']) AS sg,
        regexp_extract(annotation, '^execute_(\d+)_context_(\d+)\(.*\)_generation_(\d+)\(', ['tok', 'n', 'm']) AS vl,
        regexp_extract(annotation, '^execute_context_(\d+)\((\d+)(?:_\d+)?\)_generation_(\d+)\((\d+)(?:_\d+)?\)',
                       ['n', 'ctok', 'm', 'gtok']) AS vo
    FROM serving
), served AS (
    SELECT run_id, pass, annotation, ann_start,
        CASE WHEN sg.kind IN ('EXTEND', 'PREFILL') THEN 'prefill' WHEN sg.kind = 'DECODE' THEN 'decode'
             WHEN sg.kind = 'MIXED' THEN 'mixed'
             WHEN vl.n <> '' THEN CASE WHEN vl.m = '0' THEN 'prefill' WHEN vl.n = '0' THEN 'decode' ELSE 'mixed' END
             WHEN vo.n <> '' THEN CASE WHEN vo.m = '0' THEN 'prefill' WHEN vo.n = '0' THEN 'decode' ELSE 'mixed' END
        END AS step_kind,
        CASE WHEN sg.kind <> '' THEN coalesce(TRY_CAST(nullif(sg.toks, '') AS BIGINT),
                                             CASE WHEN sg.kind = 'DECODE' THEN TRY_CAST(sg.bs AS BIGINT) END)
             WHEN vl.n <> '' THEN TRY_CAST(vl.tok AS BIGINT)
             WHEN vo.n <> '' THEN TRY_CAST(vo.ctok AS BIGINT) + TRY_CAST(vo.gtok AS BIGINT) END AS tokens,
        CASE WHEN sg.kind <> '' THEN TRY_CAST(sg.bs AS BIGINT)
             WHEN vl.n <> '' THEN TRY_CAST(vl.n AS BIGINT) + TRY_CAST(vl.m AS BIGINT)
             WHEN vo.n <> '' THEN TRY_CAST(vo.n AS BIGINT) + TRY_CAST(vo.m AS BIGINT) END AS requests
    FROM parsed
), said AS (
    -- the attention kernels' names that say prefill or decode, once per distinct name
    SELECT name, op_type, regexp_matches(name, '(?i)prefill|extend') AS prefill,
        regexp_matches(name, '(?i)decode|unified_attention_3d') AS decode
    FROM _cats WHERE category = 'attention' AND name IS NOT NULL
      AND (regexp_matches(name, '(?i)prefill|extend') OR regexp_matches(name, '(?i)decode|unified_attention_3d'))
), by_names AS (
    -- prefill or decode from the names of the attention kernels that run from the pass's first anchor to its
    -- last: the anchor itself may be a KV-cache write that says neither, beside a BatchDecode kernel
    SELECT p.run_id, p.pass, bool_or(d.prefill) AS prefill, bool_or(d.decode) AS decode
    FROM kernels k
    JOIN said d ON d.name = k.name AND d.op_type IS NOT DISTINCT FROM k.op_type
    ASOF JOIN _passes p ON p.run_id = k.run_id AND k.start_ns >= p.first_start
    WHERE k.run_id IN (SELECT run_id FROM _passes) AND k.start_ns <= p.last_end
    GROUP BY ALL
), stepped AS (
    SELECT p.run_id, p.pass,
        coalesce(f.step_id, ps.host_step, ps.device_step,
                 CASE WHEN s.ann_start IS NOT NULL THEN dense_rank() OVER (PARTITION BY p.run_id ORDER BY s.ann_start) - 1 END,
                 CASE WHEN tr.run_id IS NOT NULL THEN f.opt_steps END) AS marked_step,
        CASE WHEN f.step_id IS NOT NULL THEN 'step-id' WHEN coalesce(ps.host_step, ps.device_step) IS NOT NULL THEN 'profiler-step'
             WHEN s.ann_start IS NOT NULL THEN 'annotation' WHEN tr.run_id IS NOT NULL THEN 'optimizer' ELSE 'pass' END AS step_from,
        CASE WHEN tr.run_id IS NOT NULL THEN 'train' WHEN s.step_kind IS NOT NULL THEN s.step_kind
             WHEN n.prefill AND n.decode THEN 'mixed' WHEN n.prefill THEN 'prefill' WHEN n.decode THEN 'decode' END AS step_kind,
        CASE WHEN tr.run_id IS NOT NULL THEN 'training' WHEN s.step_kind IS NOT NULL THEN 'annotation'
             WHEN n.prefill OR n.decode THEN 'kernel-names' END AS kind_from,
        CASE WHEN tr.run_id IS NULL THEN s.tokens END AS tokens,
        CASE WHEN tr.run_id IS NULL THEN s.requests END AS requests,
        s.annotation
    FROM _passes p
    JOIN firsts f USING (run_id, pass)
    LEFT JOIN profiler_step ps USING (run_id, pass)
    LEFT JOIN served s USING (run_id, pass)
    LEFT JOIN by_names n USING (run_id, pass)
    LEFT JOIN _stream_runs tr USING (run_id)
), numbered AS (
    -- the pass itself only in a run with no marks at all: a pass outside every ProfilerStep#N of a run that
    -- has them (a capture that starts mid-step) has no step
    SELECT *, coalesce(marked_step, CASE WHEN count(marked_step) OVER (PARTITION BY run_id) = 0 THEN pass END) AS step
    FROM stepped
)
SELECT run_id, pass, step, CASE WHEN step IS NULL THEN NULL ELSE step_from END AS step_from,
    CASE WHEN step IS NOT NULL THEN row_number() OVER (PARTITION BY run_id, step ORDER BY pass) - 1 END AS microbatch,
    step_kind, kind_from, tokens, requests, annotation
FROM numbered;
