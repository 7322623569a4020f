-- The work of one run's kernels that carry their own shapes (Ascend kernel_details.csv, op_summary and the
-- SQLite exports: kernel_texts), into kernel_work_tuples: computed and stored once per distinct (text tuple,
-- op type, core type) of the run's counted kernels; the view kernel_work gives it to every counted kernel of
-- that tuple. Formulas (docs/roofline.md):
--   gemm 2MNK: op types MatMul*, BatchMatMul* (and Quant/WeightQuant variants): 2*M*N*K times the batch, from
--     the first two inputs and the first output (gemm_flops: transposed operands resolved by the output's
--     shape; NULL when the shapes allow two answers); bytes: every input and output once;
--   gemm 2MNK (FRACTAL_NZ): the same op types with an operand stored in Ascend's tiled FRACTAL_NZ format,
--     [..., N1, M1, M0, N0] for a matrix [..., M, N] (M0 = 16 rows, N0 = 32 bytes of columns per tile):
--     unfolded to [..., M1*M0, N1*N0], a size rounded up to its tile; a dimension read from two operands
--     takes the smaller reading when the two fit one size (the exact one when either is ND), else no answer;
--   moe gemm 2MNK (GroupedMatmul): a grouped expert GEMM, x [M, K] (every routed token, tokens * top-k
--     rows), weight [E, K, N] or [E, N, K] (or FRACTAL_NZ), y [M, N]: 2*M*N*K; bytes: every input and output;
--   attention [causal] 4BNSqSkD / 10BNSqSkD: FlashAttentionScore forward / FlashAttentionScoreGrad backward,
--     B, N (query heads) and Sq from the softmax statistics tensor [B,N,Sq,8], the layout (BSH, SBH, BSND,
--     BNSD) from where B and Sq sit in the query's shape, D = |q| / (B*N*Sq), Sk from the key's shape; a
--     2048x2048 mask (the compressed causal band of sparse modes 2-4) halves the FLOPs; any other input of two
--     or more dimensions after q, k, v (a mask or bias whose content is not in the trace) other than the
--     statistics and tensors shaped like q (the backward's dy and attention_in), or a layout the shapes do not
--     settle, gives NULL;
--   conv [dgrad|wgrad] 2NCoHoWoCiKhKw: Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter (and their D
--     variants), each 2*N*Cout*Hout*Wout*(Cin/groups)*Kh*Kw: N, Hout, Wout from the output (forward) or the
--     gradient dy (backward); NCHW tensors give every factor; 5-D NC1HWC0 tensors with a FRACTAL_Z filter
--     [C1*Kh*Kw, Cout/16, 16, C0] give (Cin/groups)*Kh*Kw as C1*Kh*Kw*C0, the channels as stored (padded to
--     a multiple of C0), and Cout from the bias, else the output's or dy's C1*C0; a filter whose Cout/16
--     tiles do not hold Cout (a grouped convolution) gives NULL;
--   memory r+w: vector-core ops (AI_VECTOR_CORE, MIX_AIV) and other known memory-bound families: bytes of
--     every input and output, a 0-d tensor (an empty shape with a known dtype) one element, no FLOPs;
--   kernels without shapes, with another FRACTAL format (or FRACTAL_NZ outside a GEMM, FRACTAL_Z outside a
--     convolution) or an unknown dtype: no row. Values are HUGEINT from the shapes to the BIGINT result.
-- Inputs: kernels_raw, kernel_texts.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: the run's rows in kernel_work_tuples (columns: migrate_9_to_10.sql), one per tuple with a known
--   formula and FLOPs, or bytes of a memory-bound op.
INSERT INTO kernel_work_tuples (run_id, text_id, op_type, core_type, flops, bytes, flops_source, dtype)
WITH tuples AS (
    SELECT DISTINCT k.text_id, k.op_type, k.core_type, t.input_shapes, t.input_dtypes, t.input_formats,
        t.output_shapes, t.output_dtypes, t.output_formats
    FROM kernels_raw k JOIN kernel_texts t ON t.run_id = k.run_id AND t.text_id = k.text_id
    WHERE k.run_id = $run_id AND k.dup IS NULL AND k.kind = 'kernel' AND t.input_shapes IS NOT NULL
), parsed AS (
    SELECT *,
        string_split(trim(input_shapes, '"'), ';') AS in_text,
        string_split(trim(coalesce(output_shapes, ''), '"'), ';') AS out_text,
        list_transform(string_split(trim(input_shapes, '"'), ';'), lambda s: shape_dims(s)) AS ins,
        list_transform(string_split(trim(coalesce(output_shapes, ''), '"'), ';'), lambda s: shape_dims(s)) AS outs,
        string_split(coalesce(input_dtypes, ''), ';') AS in_types,
        string_split(coalesce(output_dtypes, ''), ';') AS out_types,
        -- each tensor's format, upper case, without a sub-format suffix (NC1HWC0:1)
        list_transform(string_split(coalesce(input_formats, ''), ';'),
                       lambda f: regexp_replace(upper(trim(f)), ':.*', '')) AS in_fmts,
        list_transform(string_split(coalesce(output_formats, ''), ';'),
                       lambda f: regexp_replace(upper(trim(f)), ':.*', '')) AS out_fmts
    FROM tuples
), sized AS (      -- bytes of every tensor present (an empty shape: an absent optional input, 0 bytes)
    SELECT *,
        TRY(list_sum(list_transform(list_zip(ins, in_types),
                                    lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0)))) AS in_bytes,
        TRY(list_sum(list_transform(list_zip(outs, out_types),
                                    lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0)))) AS out_bytes,
        -- every present tensor's element count is known (numel is NULL past a HUGEINT: its bytes are unknown)
        list_bool_and(list_transform(list_concat(ins, outs), lambda s: s IS NULL OR numel(s) IS NOT NULL)) AS counted,
        -- the 0-d tensors (an empty shape with a known dtype: a scalar such as a learning rate, a loss or
        -- Mul's factor): one element each, counted for memory-bound ops, whose inputs are all present
        coalesce(list_sum(list_transform(list_zip(in_text, in_types),
                                         lambda p: CASE WHEN trim(p[1]) = '' THEN dtype_bytes(p[2]) END)), 0)
        + coalesce(list_sum(list_transform(list_zip(out_text, out_types),
                                           lambda p: CASE WHEN trim(p[1]) = '' THEN dtype_bytes(p[2]) END)), 0)
            AS scalar_bytes,
        -- every present tensor has a known dtype (else its bytes are unknown)
        list_bool_and(list_transform(list_zip(ins, in_types), lambda p: p[1] IS NULL OR dtype_bytes(p[2]) IS NOT NULL))
        AND list_bool_and(list_transform(list_zip(outs, out_types),
                                         lambda p: p[1] IS NULL OR dtype_bytes(p[2]) IS NOT NULL)) AS typed,
        list_filter(list_concat(in_fmts, out_fmts), lambda f: starts_with(f, 'FRACTAL')) AS fractals,
        regexp_matches(op_type, '^(Quant|WeightQuant)?(Batch)?Mat[Mm]ul(V\d+)?$') AS gemm,
        regexp_matches(op_type, '^GroupedMatmul(V\d+)?$') AS grouped,
        regexp_matches(op_type, '^Conv2D(BackpropInput|BackpropFilter)?D?$') AS conv,
        op_type IN ('FlashAttentionScore', 'FlashAttentionScoreGrad') AS attention,
        -- the softmax statistics [B, N, Sq, 8]: the forward's first output, the backward's inputs
        list_filter(list_concat(outs, ins), lambda s: len(s) = 4 AND s[4] = 8)[1] AS stats,
        list_filter(ins, lambda s: s = [2048, 2048]) <> [] AS band_mask,
        -- an input whose content decides the work (a mask of its own, a positional bias): after q, k, v, of two or
        -- more dimensions, neither the causal band nor the statistics nor shaped like q (the backward's dy and
        -- attention_in are data)
        len(list_filter(ins[4:], lambda s: len(s) >= 2 AND s <> [2048, 2048] AND NOT (len(s) = 4 AND s[4] = 8)
                                           AND s IS DISTINCT FROM ins[1]))
            > 0 AS other_mask
    FROM parsed
), attn AS (
    SELECT *, stats[1] AS b, stats[2] AS n, stats[3] AS sq, ins[1] AS q, ins[2] AS k FROM sized
), shaped AS (
    SELECT *,
        CASE WHEN NOT attention OR stats IS NULL OR q IS NULL OR k IS NULL THEN NULL
             WHEN len(q) = 3 AND q[1] = b AND q[2] = sq AND NOT (q[1] = sq AND q[2] = b) THEN k[2]   -- BSH
             WHEN len(q) = 3 AND q[1] = sq AND q[2] = b AND NOT (q[1] = b AND q[2] = sq) THEN k[1]   -- SBH
             WHEN len(q) = 3 AND b = 1 AND sq = 1 THEN TRY(k[1] * k[2])
             WHEN len(q) = 4 AND q[1] = b AND q[2] = n AND q[3] = sq AND NOT (q[2] = sq AND q[3] = n) THEN k[3]  -- BNSD
             WHEN len(q) = 4 AND q[1] = b AND q[2] = sq AND q[3] = n AND NOT (q[2] = n AND q[3] = sq) THEN k[2]  -- BSND
        END AS sk,
        TRY(CASE WHEN attention AND stats IS NOT NULL AND q IS NOT NULL AND numel(q) % (b::HUGEINT * n * sq) = 0
                 THEN numel(q) // (b::HUGEINT * n * sq) END) AS d,
        -- FRACTAL_NZ: a GEMM operand as the matrix it stores, a struct (v: size, t: tile) per side (an ND side's tile
        -- is 1: its size is exact); NZ [..., N1, M1, M0, N0] holds rows M1*M0 and columns N1*N0
        (gemm OR grouped) AND list_bool_and(list_transform(fractals, lambda f: f = 'FRACTAL_NZ'))
            AND fractals <> [] AS nz,
        in_fmts[1] = 'FRACTAL_NZ' AS nz_a, in_fmts[2] = 'FRACTAL_NZ' AS nz_b, out_fmts[1] = 'FRACTAL_NZ' AS nz_c
    FROM attn
), tiled AS (
    SELECT *,
        nz_rows(ins[1], nz_a) AS a_r, nz_cols(ins[1], nz_a) AS a_c,
        nz_rows(ins[2], nz_b) AS b_r, nz_cols(ins[2], nz_b) AS b_c,
        nz_rows(outs[1], nz_c) AS c_r, nz_cols(outs[1], nz_c) AS c_c,
        -- the batch: the output's leading dimensions, else the larger of the operands'
        coalesce(numel(outs[1][1:len(outs[1]) - CASE WHEN nz_c THEN 4 ELSE 2 END]),
                 greatest(numel(ins[1][1:len(ins[1]) - CASE WHEN nz_a THEN 4 ELSE 2 END]),
                          numel(ins[2][1:len(ins[2]) - CASE WHEN nz_b THEN 4 ELSE 2 END]))) AS nz_batch
    FROM shaped
), nz_read AS (    -- A as [M,K] or [K,M], B as [K,N] or [N,K]: the readings whose shared sizes fit
    SELECT *,
        TRY(CASE WHEN nz AND gemm AND a_r IS NOT NULL AND a_c IS NOT NULL AND b_r IS NOT NULL AND b_c IS NOT NULL
             THEN list_distinct(list_transform(list_filter(list_transform(
                 [[false, false], [true, false], [false, true], [true, true]],
                 lambda f: {'m': CASE WHEN f[1] THEN a_c ELSE a_r END, 'ka': CASE WHEN f[1] THEN a_r ELSE a_c END,
                            'kb': CASE WHEN f[2] THEN b_c ELSE b_r END, 'n': CASE WHEN f[2] THEN b_r ELSE b_c END}),
                 -- two readings of one size fit when the sizes they round up from overlap
                 lambda r: greatest(r.ka.v - r.ka.t, r.kb.v - r.kb.t) < least(r.ka.v, r.kb.v)
                     AND (c_r IS NULL OR (greatest(r.m.v - r.m.t, c_r.v - c_r.t) < least(r.m.v, c_r.v)
                                          AND greatest(r.n.v - r.n.t, c_c.v - c_c.t) < least(r.n.v, c_c.v)))),
                 lambda r: 2 * least(r.m.v, coalesce(c_r.v, r.m.v))::HUGEINT * least(r.n.v, coalesce(c_c.v, r.n.v))
                           * least(r.ka.v, r.kb.v) * nz_batch))
        END) AS nz_options,
        -- GroupedMatmul: x [M, K], weight [E, K, N] or [E, N, K] (NZ: [E, N1, M1, M0, N0]), y [M, N]
        TRY(CASE WHEN grouped AND len(ins[1]) = 2 AND len(outs[1]) = 2 AND ins[1][1] = outs[1][1]
                  AND ((NOT nz_b AND len(ins[2]) = 3) OR (nz_b AND len(ins[2]) = 5))
                  AND ((greatest(ins[1][2] - 1, b_r.v - b_r.t) < least(ins[1][2], b_r.v)
                        AND greatest(outs[1][2] - 1, b_c.v - b_c.t) < least(outs[1][2], b_c.v))
                       OR (greatest(ins[1][2] - 1, b_c.v - b_c.t) < least(ins[1][2], b_c.v)
                           AND greatest(outs[1][2] - 1, b_r.v - b_r.t) < least(outs[1][2], b_r.v)))
             THEN 2 * ins[1][1]::HUGEINT * ins[1][2] * outs[1][2] END) AS grouped_flops
    FROM tiled
), conv_io AS (    -- the convolution's tensors: x (input), w (filter), dy (output gradient), y (output)
    SELECT *,
        CASE WHEN op_type LIKE 'Conv2DBackpropInput%' THEN outs[1] ELSE ins[1] END AS cx,
        CASE WHEN op_type LIKE 'Conv2DBackpropInput%' THEN out_fmts[1] ELSE in_fmts[1] END AS cx_fmt,
        CASE WHEN op_type LIKE 'Conv2DBackpropFilter%' THEN outs[1]
             WHEN op_type LIKE 'Conv2DBackpropInput%' THEN ins[-2] ELSE ins[2] END AS cw,
        CASE WHEN op_type LIKE 'Conv2DBackpropFilter%' THEN out_fmts[1]
             WHEN op_type LIKE 'Conv2DBackpropInput%' THEN in_fmts[len(ins) - 1] ELSE in_fmts[2] END AS cw_fmt,
        CASE WHEN op_type LIKE 'Conv2DBackprop%' THEN ins[-1] ELSE outs[1] END AS cy,
        CASE WHEN op_type LIKE 'Conv2DBackprop%' THEN in_fmts[len(ins)] ELSE out_fmts[1] END AS cy_fmt,
        CASE WHEN op_type IN ('Conv2D', 'Conv2DD') AND len(ins[3]) = 1 THEN ins[3][1] END AS bias_n
    FROM nz_read
), conv AS (       -- N, Cout, Hout, Wout from cy; (Cin/groups)*Kh*Kw from the filter
    SELECT *,
        TRY(CASE WHEN NOT conv THEN NULL
             -- NCHW: x [N, Cin, H, W], w [Cout, Cin/g, Kh, Kw], y or dy [N, Cout, Ho, Wo]
             WHEN cx_fmt = 'NCHW' AND cw_fmt = 'NCHW' AND cy_fmt = 'NCHW' AND len(cx) = 4 AND len(cw) = 4
                  AND len(cy) = 4 AND cx[1] = cy[1] AND cy[2] = cw[1] AND cx[2] % cw[2] = 0
             THEN 2 * cy[1]::HUGEINT * cy[2] * cy[3] * cy[4] * cw[2] * cw[3] * cw[4]
             -- NC1HWC0 [N, C1, H, W, C0] with a FRACTAL_Z filter [C1*Kh*Kw, Cout1, 16, C0]; Cout from the bias,
             -- else cy's C1*C0; the filter's Cout1 tiles of 16 must hold Cout (not so for a grouped filter)
             WHEN cx_fmt = 'NC1HWC0' AND cw_fmt = 'FRACTAL_Z' AND cy_fmt = 'NC1HWC0' AND len(cx) = 5
                  AND len(cw) = 4 AND len(cy) = 5 AND cx[1] = cy[1] AND cw[4] = cx[5] AND cw[1] % cx[2] = 0
                  AND cw[2] * cw[3] = (coalesce(bias_n, cy[2] * cy[5]) + 15) // 16 * 16
             THEN 2 * cy[1]::HUGEINT * coalesce(bias_n, cy[2] * cy[5]) * cy[3] * cy[4] * cw[1] * cw[4]
        END) AS conv_flops
    FROM conv_io
), work AS (      -- TRY: shapes whose work overflows a HUGEINT (dimensions of 10^18) leave that tuple's work NULL
    SELECT text_id, op_type, core_type,
        TRY(CASE WHEN gemm AND nz THEN CASE WHEN len(nz_options) = 1 THEN nz_options[1] END
             WHEN gemm THEN gemm_flops(ins[1], ins[2], outs[1])
             WHEN grouped THEN grouped_flops
             WHEN conv THEN conv_flops
             WHEN attention AND op_type = 'FlashAttentionScore'
             THEN 4 * b::HUGEINT * n * sq * sk * d // CASE WHEN band_mask THEN 2 ELSE 1 END
             WHEN attention THEN 10 * b::HUGEINT * n * sq * sk * d // CASE WHEN band_mask THEN 2 ELSE 1 END
        END) AS flops,
        TRY(CASE WHEN NOT typed OR NOT counted THEN NULL
                 WHEN gemm OR grouped OR conv OR attention THEN in_bytes + out_bytes
                 ELSE in_bytes + out_bytes + scalar_bytes END) AS bytes,
        CASE WHEN gemm AND nz THEN 'gemm 2MNK (FRACTAL_NZ)'
             WHEN gemm THEN 'gemm 2MNK'
             WHEN grouped THEN 'moe gemm 2MNK (GroupedMatmul)'
             WHEN conv AND op_type LIKE 'Conv2DBackpropInput%' THEN 'conv dgrad 2NCoHoWoCiKhKw (grad shape)'
             WHEN conv AND op_type LIKE 'Conv2DBackpropFilter%' THEN 'conv wgrad 2NCoHoWoCiKhKw (grad shape)'
             WHEN conv THEN 'conv 2NCoHoWoCiKhKw (output shape)'
             WHEN attention AND op_type = 'FlashAttentionScore'
             THEN CASE WHEN band_mask THEN 'attention causal 4BNSqSkD/2' ELSE 'attention 4BNSqSkD' END
             WHEN attention
             THEN CASE WHEN band_mask THEN 'attention bwd causal 10BNSqSkD/2' ELSE 'attention bwd 10BNSqSkD' END
             ELSE 'memory r+w' END AS flops_source,
        dtype_name(in_types[CASE WHEN conv AND op_type LIKE 'Conv2DBackpropInput%' THEN len(ins) ELSE 1 END])
            AS dtype,
        gemm OR grouped OR conv OR (attention AND NOT other_mask)
            OR core_type IN ('AI_VECTOR_CORE', 'MIX_AIV')
            OR regexp_matches(op_type, '(?i)^(Add|Adds|AddN|Sub|Subs|Mul|Muls|Div|RealDiv|Cast|Neg|Exp|Sqrt|Rsqrt|Pows|'
                              || 'Cos|Sin|Relu|Gelu|Silu|Swish|SwiGlu|Sigmoid|Tanh|ZerosLike|OnesLike|Fill|TensorMove|'
                              || 'Slice|StridedSlice|Concat|ConcatD|Transpose|TransData|RmsNorm|LayerNorm|AddRmsNorm|'
                              || 'Softmax|SoftmaxV2|RotaryPositionEmbedding|ApplyRotaryPosEmb|ReshapeAndCache|'
                              || 'ScatterUpdate|GatherV2|DropOutDoMask)(V\d+)?(Grad)?$') AS known
    FROM conv
    -- tiled formats: FRACTAL_NZ operands of a GEMM, FRACTAL_Z filters of a convolution; any other: no row
    WHERE fractals = [] OR nz
       OR (conv AND list_bool_and(list_transform(fractals, lambda f: f = 'FRACTAL_Z')))
)
SELECT $run_id, text_id, op_type, core_type, TRY_CAST(flops AS BIGINT), TRY_CAST(bytes AS BIGINT), flops_source,
    dtype
FROM work
WHERE known AND (flops IS NOT NULL OR (bytes IS NOT NULL AND flops_source = 'memory r+w'));
