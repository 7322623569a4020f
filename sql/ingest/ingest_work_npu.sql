-- The work of one run's kernels that carry their own shapes (Ascend kernel_details.csv, op_summary and the
-- SQLite exports: kernel_texts), into kernel_work_tuples: computed and stored once per distinct (text tuple,
-- op type, core type) of the run's counted kernels; the view kernel_work gives it to every counted kernel of
-- that tuple. Formulas (docs/roofline.md):
--   gemm 2MNK: op types MatMul*, BatchMatMul* (and Quant/WeightQuant variants): 2*M*N*K times the batch, from
--     the first two inputs and the first output (gemm_flops: transposed operands resolved by the output's
--     shape; NULL when the shapes allow two answers); bytes: every input and output once;
--   attention [causal] 4BNSqSkD / 10BNSqSkD: FlashAttentionScore forward / FlashAttentionScoreGrad backward,
--     B, N (query heads) and Sq from the softmax statistics tensor [B,N,Sq,8], the layout (BSH, SBH, BSND,
--     BNSD) from where B and Sq sit in the query's shape, D = |q| / (B*N*Sq), Sk from the key's shape; a
--     2048x2048 mask (the compressed causal band of sparse modes 2-4) halves the FLOPs; any other mask, or a
--     layout the shapes do not settle, gives NULL;
--   memory r+w: vector-core ops (AI_VECTOR_CORE, MIX_AIV) and other known memory-bound families: bytes of
--     every input and output, no FLOPs;
--   kernels without shapes, with a FRACTAL (non-ND) format or an unknown dtype: no row.
-- Inputs: kernels_raw, kernel_texts.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: the run's rows in kernel_work_tuples (columns: migrate_9_to_10.sql), one per tuple with a known
--   formula and FLOPs, or bytes of a memory-bound op.
INSERT INTO kernel_work_tuples (run_id, text_id, op_type, core_type, flops, bytes, flops_source, dtype)
WITH tuples AS (
    SELECT DISTINCT k.text_id, k.op_type, k.core_type, t.input_shapes, t.input_dtypes, t.input_formats,
        t.output_shapes, t.output_dtypes
    FROM kernels_raw k JOIN kernel_texts t ON t.run_id = k.run_id AND t.text_id = k.text_id
    WHERE k.run_id = $run_id AND k.dup IS NULL AND k.kind = 'kernel' AND t.input_shapes IS NOT NULL
), parsed AS (
    SELECT *,
        list_transform(string_split(trim(input_shapes, '"'), ';'), lambda s: shape_dims(s)) AS ins,
        list_transform(string_split(trim(coalesce(output_shapes, ''), '"'), ';'), lambda s: shape_dims(s)) AS outs,
        string_split(coalesce(input_dtypes, ''), ';') AS in_types,
        string_split(coalesce(output_dtypes, ''), ';') AS out_types
    FROM tuples
), sized AS (      -- bytes of every tensor present (an empty shape: an absent optional input, 0 bytes)
    SELECT *,
        list_sum(list_transform(list_zip(ins, in_types),
                                lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0))) AS in_bytes,
        list_sum(list_transform(list_zip(outs, out_types),
                                lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0))) AS out_bytes,
        -- every present tensor has a known dtype (else its bytes are unknown)
        list_bool_and(list_transform(list_zip(ins, in_types), lambda p: p[1] IS NULL OR dtype_bytes(p[2]) IS NOT NULL))
        AND list_bool_and(list_transform(list_zip(outs, out_types),
                                         lambda p: p[1] IS NULL OR dtype_bytes(p[2]) IS NOT NULL)) AS typed,
        contains(coalesce(input_formats, ''), 'FRACTAL') AS fractal,
        regexp_matches(op_type, '^(Quant|WeightQuant)?(Batch)?Mat[Mm]ul(V\d+)?$') AS gemm,
        op_type IN ('FlashAttentionScore', 'FlashAttentionScoreGrad') AS attention,
        -- the softmax statistics [B, N, Sq, 8]: the forward's first output, the backward's inputs
        list_filter(list_concat(outs, ins), lambda s: len(s) = 4 AND s[4] = 8)[1] AS stats,
        list_filter(ins, lambda s: s = [2048, 2048]) <> [] AS band_mask,
        len(list_filter(ins[4:], lambda s: len(s) >= 2 AND s <> [2048, 2048] AND NOT (len(s) = 4 AND s[4] = 8))) > 0
            AS other_mask
    FROM parsed
), attn AS (
    SELECT *, stats[1] AS b, stats[2] AS n, stats[3] AS sq, ins[1] AS q, ins[2] AS k FROM sized
), shaped AS (
    SELECT *,
        CASE WHEN NOT attention OR stats IS NULL OR q IS NULL OR k IS NULL THEN NULL
             WHEN len(q) = 3 AND q[1] = b AND q[2] = sq AND NOT (q[1] = sq AND q[2] = b) THEN k[2]   -- BSH
             WHEN len(q) = 3 AND q[1] = sq AND q[2] = b AND NOT (q[1] = b AND q[2] = sq) THEN k[1]   -- SBH
             WHEN len(q) = 3 AND b = 1 AND sq = 1 THEN k[1] * k[2]
             WHEN len(q) = 4 AND q[1] = b AND q[2] = n AND q[3] = sq AND NOT (q[2] = sq AND q[3] = n) THEN k[3]  -- BNSD
             WHEN len(q) = 4 AND q[1] = b AND q[2] = sq AND q[3] = n AND NOT (q[2] = n AND q[3] = sq) THEN k[2]  -- BSND
        END AS sk,
        CASE WHEN attention AND stats IS NOT NULL AND q IS NOT NULL AND numel(q) % (b * n * sq) = 0
             THEN numel(q) // (b * n * sq) END AS d
    FROM attn
), work AS (
    SELECT text_id, op_type, core_type,
        CASE WHEN gemm THEN gemm_flops(ins[1], ins[2], outs[1])
             WHEN attention AND op_type = 'FlashAttentionScore'
             THEN 4 * b::HUGEINT * n * sq * sk * d // CASE WHEN band_mask THEN 2 ELSE 1 END
             WHEN attention THEN 10 * b::HUGEINT * n * sq * sk * d // CASE WHEN band_mask THEN 2 ELSE 1 END END AS flops,
        CASE WHEN typed THEN in_bytes + out_bytes END AS bytes,
        CASE WHEN gemm THEN 'gemm 2MNK'
             WHEN attention AND op_type = 'FlashAttentionScore'
             THEN CASE WHEN band_mask THEN 'attention causal 4BNSqSkD/2' ELSE 'attention 4BNSqSkD' END
             WHEN attention
             THEN CASE WHEN band_mask THEN 'attention bwd causal 10BNSqSkD/2' ELSE 'attention bwd 10BNSqSkD' END
             ELSE 'memory r+w' END AS flops_source,
        dtype_name(in_types[1]) AS dtype,
        gemm OR (attention AND NOT other_mask)
            OR core_type IN ('AI_VECTOR_CORE', 'MIX_AIV')
            OR regexp_matches(op_type, '(?i)^(Add|Adds|AddN|Sub|Subs|Mul|Muls|Div|RealDiv|Cast|Neg|Exp|Sqrt|Rsqrt|Pows|'
                              || 'Cos|Sin|Relu|Gelu|Silu|Swish|SwiGlu|Sigmoid|Tanh|ZerosLike|OnesLike|Fill|TensorMove|'
                              || 'Slice|StridedSlice|Concat|ConcatD|Transpose|TransData|RmsNorm|LayerNorm|AddRmsNorm|'
                              || 'Softmax|SoftmaxV2|RotaryPositionEmbedding|ApplyRotaryPosEmb|ReshapeAndCache|'
                              || 'ScatterUpdate|GatherV2|DropOutDoMask)(V\d+)?(Grad)?$') AS known
    FROM shaped
    WHERE NOT fractal
)
SELECT $run_id, text_id, op_type, core_type, TRY_CAST(flops AS BIGINT), TRY_CAST(bytes AS BIGINT), flops_source,
    dtype
FROM work
WHERE known AND (flops IS NOT NULL OR (bytes IS NOT NULL AND flops_source = 'memory r+w'));
