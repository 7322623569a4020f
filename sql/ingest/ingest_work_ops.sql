-- The work of one Chrome/Kineto run's kernels from the shapes of the PyTorch op that launched each (its
-- `Input Dims`, `Input type` and `Concrete Inputs`, kept in trace_events.extra_args by ingest_chrome_part),
-- into kernel_work_rows; then the shapes of the cpu_ops that launched no kernel are dropped (they answer nothing).
-- 1. launch: the runtime/driver call with the kernel's correlation id (launch_call), and the innermost cpu_op
--    with shapes around it on the calling thread (start <= call <= end, the shortest). The join is a hash
--    join on (thread, 1 ms bucket) plus the range condition: each op is listed once per bucket it covers.
--    Older PyTorch (1.8-1.9, the layout whose Concrete Inputs are not recorded) leaves shapes to two other
--    ops: a cudnn_convolution_backward_input / _weight op takes the input or weight shape from the
--    aten::cudnn_convolution_backward around it (the next op with shapes around the call), and a forward
--    convolution its output's shape from its backward node (the one cpu_op with its autograd sequence
--    number and a forward thread id above 0, whose input is dy: CudnnConvolutionBackward).
-- 2. the op's work (docs/roofline.md), from its logical shapes (PyTorch records them untransposed):
--    gemm 2MNK: aten::mm, bmm, _scaled_mm, matmul (A, B the first two inputs), addmm, baddbmm (the second
--      and third), linear (input [..., K], weight [N, K]: 2 * |input| * N); bytes A + B + output;
--    attention [causal] 4BHSqSkD: aten::_flash_attention_forward (q [B,Sq,H,D], k [B,Sk,Hk,D], is_causal
--      the 9th input), aten::_scaled_dot_product_flash_attention (q [B,H,Sq,D], is_causal the 5th);
--      backward 10BHSqSkD: aten::_flash_attention_backward (q, k the 2nd and 3rd inputs, is_causal the
--      12th); causal halves it; variable lengths (3-D q) give NULL;
--    conv [dgrad|wgrad] 2NCoHoWoCiKhKw: 2 * N * Cout * Hout * Wout * (Cin/groups) * Kh * Kw (any number of
--      spatial dimensions), from the input [N, Cin, H, W] and weight [Cout, Cin/groups, Kh, Kw]:
--      aten::conv1d/2d/3d, convolution, _convolution, cudnn_convolution, miopen_convolution (and depthwise):
--      Kineto records no output shape, so Hout, Wout come from the stride, padding and dilation of its
--      Concrete Inputs (out = (in + 2 pad - dilation (k - 1) - 1) // stride + 1; not recorded: from the
--      backward node's dy, step 1, else NULL; transposed: NULL); bytes input, weight, bias, output;
--      aten::convolution_backward (grad_output, input, weight, ..., output_mask): the gradient's shape gives
--      Hout, Wout; the count once per gradient its output_mask asks for (input, weight); bytes dy, x, w read
--      and the gradients written; aten::cudnn_convolution_backward_input (the input's size as a Concrete
--      Input, dy, weight) and _weight (the weight's size as a Concrete Input, dy, input) of older PyTorch:
--      one gradient each, a size not recorded taken from the op around them (step 1);
--    memory r+w: elementwise ops that are not in place (add, mul, sub, div, neg, rsqrt, sqrt, pow, exp, silu,
--      gelu, relu, sigmoid, tanh, where): bytes of every tensor input (a 0-d tensor: one element; a Python
--      Scalar argument: none) plus an output like the largest one.
-- 3. an op that launched several kernels (split-K and its reduce, a GEMM and a cast): its FLOPs and bytes go
--    once, to the longest of its kernels; the others get 0 and say so in flops_source.
-- 4. moe gemm gate-up / down 2*T*topk*N*K: the two expert GEMM kernels (vLLM/SGLang fused_moe_kernel, CK
--    kernel_moe_gemm, triton _matmul_ogs, TRT-LLM bmm_, grouped GEMMs) that vllm:: / sglang::
--    inplace_fused_experts, outplace_fused_experts or aiter::fused_moe_ launched, from its inputs
--    hidden_states [T, K], w1 [E, 2N, K], w2 [E, K, N], topk_weights, topk_ids [T, topk]: the first in launch
--    order 2*T*topk*(2N)*K (gate and up), the second 2*T*topk*K*N (down); an op with another count of expert
--    GEMM kernels (chunked), or weights whose shapes do not match hidden_states (packed int4/fp4): none.
--    Bytes: NULL (which experts' weights are read depends on the routing, not the shapes).
-- Inputs: trace_events.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: the run's rows in kernel_work_rows (columns: migrate_8_to_9.sql); trace_events.extra_args set to NULL
--   on the run's cpu_ops with shapes that launched no kernel and whose shapes step 1 did not take.
CREATE OR REPLACE TEMP TABLE _work_launch AS
WITH calls AS (
    SELECT k.seq, k.dur_ns, k.name AS kernel_name, h.pid, h.tid, h.start_ns AS t
    FROM trace_events k
    JOIN trace_events h ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id
    WHERE k.run_id = $run_id AND k.kind = 'kernel' AND k.correlation_id IS NOT NULL
      AND h.ph = 'X' AND h.kind IS NULL AND launch_call(h.cat)
    QUALIFY row_number() OVER (PARTITION BY k.seq ORDER BY h.start_ns, h.seq) = 1
), ops AS (
    SELECT seq AS op_seq, pid, tid, start_ns, start_ns + dur_ns AS end_ns, dur_ns, name, extra_args,
        unnest(range(start_ns // 1000000, (start_ns + dur_ns) // 1000000 + 1)) AS bucket
    FROM trace_events
    WHERE run_id = $run_id AND cat = 'cpu_op' AND ph = 'X' AND starts_with(extra_args, '{"dims"')
), launched AS (   -- the innermost op, and for the older backward convolution ops the next one around the call
    SELECT c.seq, c.dur_ns, c.kernel_name, c.t, o.op_seq, o.name AS op_name, o.extra_args,
        CASE WHEN o.name IN ('aten::cudnn_convolution_backward_input', 'aten::cudnn_convolution_backward_weight')
             THEN lead(o.op_seq) OVER w END AS outer_seq,
        CASE WHEN o.name IN ('aten::cudnn_convolution_backward_input', 'aten::cudnn_convolution_backward_weight')
             THEN lead(o.name) OVER w END AS outer_name,
        CASE WHEN o.name IN ('aten::cudnn_convolution_backward_input', 'aten::cudnn_convolution_backward_weight')
             THEN lead(o.extra_args) OVER w END AS outer_args
    FROM calls c
    JOIN ops o ON o.pid = c.pid AND o.tid = c.tid AND o.bucket = c.t // 1000000 AND o.start_ns <= c.t
                  AND c.t <= o.end_ns
    WINDOW w AS (PARTITION BY c.seq ORDER BY o.dur_ns, o.start_ns DESC, o.op_seq)
    QUALIFY row_number() OVER w = 1
), grads AS (      -- backward nodes (forward thread id above 0) by sequence number, where one only has it
    SELECT TRY_CAST(json_extract(extra_args, '$.seq_nr') AS BIGINT) AS seq_nr, any_value(seq) AS grad_seq,
        any_value(name) AS grad_name, any_value(extra_args) AS grad_args
    FROM trace_events
    WHERE run_id = $run_id AND cat = 'cpu_op' AND ph = 'X' AND starts_with(extra_args, '{"dims"')
      AND contains(extra_args, ',"fwd_tid":') AND TRY_CAST(json_extract(extra_args, '$.fwd_tid') AS BIGINT) > 0
    GROUP BY 1
    HAVING count(*) = 1
)
SELECT l.*, g.grad_seq, g.grad_args
FROM launched l
LEFT JOIN grads g
    ON g.seq_nr = CASE WHEN contains(l.extra_args, ',"fwd_tid":0}')   -- a forward op (recorded with its number)
                            -- of the forward convolutions of conv_args below
                            AND regexp_full_match(l.op_name, 'aten::(conv[123]d|convolution|_convolution|cudnn_'
                                                  || 'convolution|miopen_convolution|miopen_depthwise_convolution)')
                       THEN TRY_CAST(json_extract(l.extra_args, '$.seq_nr') AS BIGINT) END
    AND NOT contains(g.grad_name, 'Transpose');
INSERT INTO kernel_work_rows (run_id, seq, flops, bytes, flops_source, dtype)
WITH ops AS (
    SELECT op_seq, any_value(op_name) AS op_name,
        TRY_CAST(json_extract(any_value(extra_args), '$.dims') AS BIGINT[][]) AS dims,
        TRY_CAST(json_extract(any_value(extra_args), '$.types') AS VARCHAR[]) AS types,
        TRY_CAST(json_extract(any_value(extra_args), '$.concrete') AS VARCHAR[]) AS concrete,
        any_value(outer_name) AS outer_name,
        TRY_CAST(json_extract(any_value(outer_args), '$.dims') AS BIGINT[][]) AS outer_dims,
        TRY_CAST(json_extract(any_value(grad_args), '$.dims') AS BIGINT[][]) AS grad_dims
    FROM _work_launch
    GROUP BY op_seq
), gemm AS (
    SELECT *,
        CASE WHEN op_name IN ('aten::addmm', 'aten::baddbmm') THEN 2 ELSE 1 END AS ia,
        op_name IN ('aten::mm', 'aten::bmm', 'aten::_scaled_mm', 'aten::matmul', 'aten::addmm', 'aten::baddbmm')
            AS is_gemm
    FROM ops
), operands AS (
    SELECT *, dims[ia] AS a, dims[ia + 1] AS b, dtype_bytes(types[ia]) AS esize,
        greatest(numel(dims[ia][1:len(dims[ia]) - 2]), numel(dims[ia + 1][1:len(dims[ia + 1]) - 2])) AS batch
    FROM gemm
), attention AS (
    SELECT *,
        CASE op_name WHEN 'aten::_flash_attention_forward' THEN 9 WHEN 'aten::_scaled_dot_product_flash_attention' THEN 5
                     WHEN 'aten::_flash_attention_backward' THEN 12 END AS causal_at,
        CASE WHEN op_name = 'aten::_flash_attention_backward' THEN 2 ELSE 1 END AS iq
    FROM operands
), attn_dims AS (
    SELECT *, dims[iq] AS q, dims[iq + 1] AS k,
        op_name = 'aten::_scaled_dot_product_flash_attention' AS bhsd,
        concrete[causal_at] = 'True' AS causal
    FROM attention
), conv_args AS (  -- where each convolution op keeps its arguments (1-based positions in the op's inputs)
    SELECT *,
        CASE WHEN regexp_full_match(op_name, 'aten::(conv[123]d|convolution|_convolution)') THEN 'fwd'
             WHEN regexp_full_match(op_name, 'aten::(cudnn|miopen|miopen_depthwise)_convolution') THEN 'fwd'
             WHEN op_name = 'aten::convolution_backward' THEN 'bwd'
             WHEN op_name = 'aten::cudnn_convolution_backward_input' THEN 'dgrad'
             WHEN op_name = 'aten::cudnn_convolution_backward_weight' THEN 'wgrad' END AS conv_kind,
        -- stride, padding, dilation (forward ops: the backward ops take Hout, Wout from dy) and transposed
        CASE WHEN op_name = 'aten::cudnn_convolution' THEN 4
             WHEN regexp_full_match(op_name, 'aten::(miopen|miopen_depthwise)_convolution') THEN 5 ELSE 4
        END AS at_stride,
        CASE WHEN op_name = 'aten::cudnn_convolution' THEN 3
             WHEN regexp_full_match(op_name, 'aten::(miopen|miopen_depthwise)_convolution') THEN 4 ELSE 5 END AS at_pad,
        CASE WHEN op_name = 'aten::cudnn_convolution' THEN 5
             WHEN regexp_full_match(op_name, 'aten::(miopen|miopen_depthwise)_convolution') THEN 6 ELSE 6 END AS at_dil,
        CASE WHEN op_name IN ('aten::convolution', 'aten::_convolution') THEN 7
             WHEN op_name = 'aten::convolution_backward' THEN 8 END AS at_transposed
    FROM attn_dims
), conv_in AS (
    SELECT *,
        -- x [N, Cin, *spatial], w [Cout, Cin/g, *kernel], dy [N, Cout, *out spatial]; the older backward ops'
        -- size not recorded: the x or w of the aten::cudnn_convolution_backward (x, dy, w) around them, of
        -- the same dy and the same other operand
        CASE WHEN conv_kind = 'fwd' THEN dims[1] WHEN conv_kind = 'bwd' THEN dims[2]
             WHEN conv_kind = 'wgrad' THEN dims[3]
             WHEN conv_kind = 'dgrad'
             THEN coalesce(TRY_CAST(concrete[1] AS BIGINT[]),
                           CASE WHEN outer_name = 'aten::cudnn_convolution_backward' AND outer_dims[2] = dims[2]
                                     AND outer_dims[3] = dims[3] THEN outer_dims[1] END) END
            AS cx,
        CASE WHEN conv_kind = 'fwd' THEN dims[2] WHEN conv_kind IN ('bwd', 'dgrad') THEN dims[3]
             WHEN conv_kind = 'wgrad'
             THEN coalesce(TRY_CAST(concrete[1] AS BIGINT[]),
                           CASE WHEN outer_name = 'aten::cudnn_convolution_backward' AND outer_dims[2] = dims[2]
                                     AND outer_dims[1] = dims[3] THEN outer_dims[3] END) END AS cw,
        CASE WHEN conv_kind = 'bwd' THEN dims[1] WHEN conv_kind IN ('dgrad', 'wgrad') THEN dims[2] END AS cdy,
        -- a forward op's dy, from its backward node (older PyTorch, step 1)
        CASE WHEN conv_kind = 'fwd' AND len(grad_dims) = 1 THEN grad_dims[1] END AS cgrad,
        CASE WHEN conv_kind = 'fwd' AND len(dims[3]) = 1 AND op_name <> 'aten::cudnn_convolution' THEN dims[3] END
            AS cbias,
        TRY_CAST(concrete[at_stride] AS BIGINT[]) AS c_stride, TRY_CAST(concrete[at_pad] AS BIGINT[]) AS c_pad,
        TRY_CAST(concrete[at_dil] AS BIGINT[]) AS c_dil,
        coalesce(concrete[at_transposed] IN ('True', 'true', '1'), false) AS c_transposed,
        TRY_CAST(concrete[11] AS BOOLEAN[]) AS c_mask
    FROM conv_args
), conv_out AS (   -- the output's spatial sizes: the gradient's, else from stride, padding and dilation
    SELECT *, coalesce(cdy[1], cx[1]) AS c_n,
        CASE WHEN conv_kind IS NULL OR len(cw) < 3 OR c_transposed OR (cx IS NOT NULL AND len(cx) <> len(cw)) THEN NULL
             WHEN cdy IS NOT NULL THEN CASE WHEN len(cdy) = len(cw) AND cdy[2] = cw[1]
                                                 AND (cx IS NULL OR cdy[1] = cx[1]) THEN cdy[3:] END
             WHEN len(cx) = len(cw) AND len(c_stride) IN (1, len(cx) - 2) AND len(c_pad) IN (1, len(cx) - 2)
                  AND len(c_dil) IN (1, len(cx) - 2)
             THEN TRY(list_transform(range(1, len(cx) - 1),
                  lambda i: (cx[i + 2] + 2 * c_pad[CASE WHEN len(c_pad) = 1 THEN 1 ELSE i END]
                             - c_dil[CASE WHEN len(c_dil) = 1 THEN 1 ELSE i END] * (cw[i + 2] - 1) - 1)
                            // c_stride[CASE WHEN len(c_stride) = 1 THEN 1 ELSE i END] + 1))
             WHEN len(cgrad) = len(cw) AND cgrad[1] = cx[1] AND cgrad[2] = cw[1] THEN cgrad[3:]
        END AS c_out,
        CASE WHEN len(cgrad) = len(cw) AND cgrad[1] = cx[1] AND cgrad[2] = cw[1] THEN cgrad[3:] END AS c_grad_out,
        CASE conv_kind WHEN 'bwd' THEN (CASE WHEN c_mask[1] THEN 1 ELSE 0 END) + (CASE WHEN c_mask[2] THEN 1 ELSE 0 END)
                       WHEN 'fwd' THEN 1 WHEN 'dgrad' THEN 1 WHEN 'wgrad' THEN 1 END AS c_times
    FROM conv_in
), conv AS (       -- the count once per gradient (backward) or once (forward); groups: Cin a multiple of Cin/g
    SELECT *,
        CASE WHEN c_out IS NOT NULL AND list_bool_and(list_transform(c_out, lambda o: o > 0)) AND c_times > 0
                  AND (cx IS NULL OR cx[2] % cw[2] = 0)
             THEN TRY(c_times * 2 * c_n::HUGEINT * cw[1] * numel(c_out) * numel(cw[2:])) END AS conv_flops,
        CASE WHEN c_out IS NOT NULL THEN TRY(c_n::HUGEINT * cw[1] * numel(c_out)) END AS c_out_numel
    FROM conv_out
), work AS (      -- TRY: shapes whose work overflows a HUGEINT (a dimension of 2^62) leave that op's work NULL
    SELECT op_seq,
        TRY(CASE WHEN is_gemm AND len(a) >= 2 AND len(b) >= 2 AND a[-1] = b[-2]
             THEN 2 * a[-2]::HUGEINT * b[-1] * a[-1] * batch
             WHEN op_name = 'aten::linear' AND len(a) >= 1 AND len(b) = 2 AND a[-1] = b[2]
             THEN 2 * numel(a) * b[1]
             WHEN causal_at IS NOT NULL AND len(q) = 4 AND len(k) = 4 AND concrete[causal_at] IN ('True', 'False')
             THEN CASE WHEN iq = 2 THEN 10 ELSE 4 END * numel(q) * CASE WHEN bhsd THEN k[3] ELSE k[2] END
                  // CASE WHEN causal THEN 2 ELSE 1 END
             WHEN conv_kind IS NOT NULL THEN conv_flops END) AS flops,
        TRY(CASE WHEN is_gemm AND len(a) >= 2 AND len(b) >= 2 AND a[-1] = b[-2]
             THEN (numel(a) + numel(b) + a[-2]::HUGEINT * b[-1] * batch) * esize
             WHEN op_name = 'aten::linear' AND len(a) >= 1 AND len(b) = 2 AND a[-1] = b[2]
             THEN (numel(a) + numel(b) + numel(a) // a[-1] * b[1]) * esize
             WHEN causal_at IS NOT NULL AND len(q) = 4 AND len(k) = 4
             THEN (2 * numel(q) + 2 * numel(k)) * esize                      -- q, k, v read, out written
             -- forward: x, w, bias read, y written; backward: dy, x, w read, each asked gradient written
             WHEN conv_kind = 'fwd' AND conv_flops IS NOT NULL
             THEN (numel(cx) + numel(cw) + coalesce(numel(cbias), 0) + c_out_numel) * dtype_bytes(types[1])
             WHEN conv_kind = 'bwd' AND conv_flops IS NOT NULL
             THEN (numel(cdy) + numel(cx) + numel(cw) + CASE WHEN c_mask[1] THEN numel(cx) ELSE 0 END
                   + CASE WHEN c_mask[2] THEN numel(cw) ELSE 0 END) * dtype_bytes(types[1])
             WHEN conv_kind IN ('dgrad', 'wgrad') AND conv_flops IS NOT NULL     -- dy and w or x read, the other written
             THEN (numel(cdy) + numel(cx) + numel(cw)) * dtype_bytes(types[2])
             WHEN regexp_full_match(op_name, 'aten::(add|mul|sub|div|neg|rsqrt|sqrt|pow|exp|silu|gelu|relu|sigmoid|tanh|where)')
                  AND list_bool_and(list_transform(list_zip(dims, types),
                                    lambda p: p[1] = [] OR dtype_bytes(p[2]) IS NOT NULL))
                  -- every tensor's element count known (numel is NULL past a HUGEINT)
                  AND list_bool_and(list_transform(dims, lambda d: d IS NULL OR numel(d) IS NOT NULL))
             THEN list_sum(list_transform(list_zip(dims, types), lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0)))
                  + list_max(list_transform(list_zip(dims, types), lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0)))
        END) AS bytes,
        CASE WHEN is_gemm OR op_name = 'aten::linear' THEN 'gemm 2MNK'
             WHEN causal_at IS NOT NULL AND iq = 2 THEN CASE WHEN causal THEN 'attention bwd causal 10BHSqSkD/2' ELSE 'attention bwd 10BHSqSkD' END
             WHEN causal_at IS NOT NULL THEN CASE WHEN causal THEN 'attention causal 4BHSqSkD/2' ELSE 'attention 4BHSqSkD' END
             WHEN conv_kind = 'fwd' AND c_out = c_grad_out THEN 'conv 2NCoHoWoCiKhKw (grad shape)'
             WHEN conv_kind = 'fwd' THEN 'conv 2NCoHoWoCiKhKw (stride, padding)'
             WHEN conv_kind = 'bwd' AND c_mask[1] AND c_mask[2] THEN 'conv dgrad+wgrad 2NCoHoWoCiKhKw each (grad shape)'
             WHEN (conv_kind = 'bwd' AND c_mask[1]) OR conv_kind = 'dgrad' THEN 'conv dgrad 2NCoHoWoCiKhKw (grad shape)'
             WHEN conv_kind IN ('bwd', 'wgrad') THEN 'conv wgrad 2NCoHoWoCiKhKw (grad shape)'
             ELSE 'memory r+w' END AS flops_source,
        dtype_name(CASE WHEN is_gemm OR causal_at IS NOT NULL OR op_name = 'aten::linear' THEN types[ia]
                        WHEN conv_kind IN ('dgrad', 'wgrad') THEN types[2]
                        ELSE types[1] END) AS dtype
    FROM conv
)
SELECT $run_id, l.seq,
    TRY_CAST(CASE WHEN main THEN w.flops WHEN w.flops IS NOT NULL THEN 0 END AS BIGINT),
    TRY_CAST(CASE WHEN main THEN w.bytes WHEN w.bytes IS NOT NULL THEN 0 END AS BIGINT),
    CASE WHEN main THEN w.flops_source ELSE w.flops_source || ' (on its op''s longest kernel)' END, w.dtype
FROM (SELECT *, row_number() OVER (PARTITION BY op_seq ORDER BY dur_ns DESC, seq) = 1 AS main FROM _work_launch) l
JOIN work w USING (op_seq)
WHERE w.flops IS NOT NULL OR w.bytes IS NOT NULL;
INSERT INTO kernel_work_rows (run_id, seq, flops, bytes, flops_source, dtype)
WITH moe AS (      -- a fused-experts op: hidden_states [T, K], w1 [E, 2N, K], w2 [E, K, N], topk_ids [T, topk]
    SELECT op_seq, dims[1] AS h, dims[2] AS w1, dims[3] AS w2, dims[5] AS ids, types[2] AS w_type
    FROM (SELECT DISTINCT op_seq, op_name,
                 TRY_CAST(json_extract(extra_args, '$.dims') AS BIGINT[][]) AS dims,
                 TRY_CAST(json_extract(extra_args, '$.types') AS VARCHAR[]) AS types
          FROM _work_launch
          WHERE op_name IN ('vllm::inplace_fused_experts', 'vllm::outplace_fused_experts',
                            'sglang::inplace_fused_experts', 'sglang::outplace_fused_experts', 'aiter::fused_moe_'))
    WHERE len(dims[1]) = 2 AND len(dims[2]) = 3 AND len(dims[3]) = 3 AND len(dims[5]) = 2
      AND dims[5][1] = dims[1][1] AND dims[2][3] = dims[1][2] AND dims[3][2] = dims[1][2]
      AND dims[2][1] = dims[3][1] AND (dims[2][2] = dims[3][3] OR dims[2][2] = 2 * dims[3][3]::HUGEINT)
), gemms AS (      -- its expert GEMM kernels, in launch order
    SELECT seq, op_seq, row_number() OVER (PARTITION BY op_seq ORDER BY t, seq) AS nth,
        count(*) OVER (PARTITION BY op_seq) AS n
    FROM _work_launch
    WHERE op_seq IN (SELECT op_seq FROM moe)
      AND regexp_matches(kernel_name,
                         '^fused_moe_kernel|kernel_moe_gemm|_matmul_ogs|^bmm_|[Gg]rouped_?[Gg]emm|moe_gemm')
)
SELECT $run_id, g.seq,
    TRY_CAST(TRY(CASE WHEN g.nth = 1 THEN 2 * m.h[1]::HUGEINT * m.ids[2] * m.w1[2] * m.w1[3]
                      ELSE 2 * m.h[1]::HUGEINT * m.ids[2] * m.w2[2] * m.w2[3] END) AS BIGINT),
    NULL, CASE WHEN g.nth = 1 THEN 'moe gemm gate-up 2TkNK' ELSE 'moe gemm down 2TkNK' END, dtype_name(m.w_type)
FROM gemms g JOIN moe m USING (op_seq)
WHERE g.n = 2;
UPDATE trace_events SET extra_args = NULL
WHERE run_id = $run_id AND cat = 'cpu_op' AND starts_with(extra_args, '{"dims"')
  AND seq NOT IN (SELECT op_seq FROM _work_launch)
  AND seq NOT IN (SELECT outer_seq FROM _work_launch WHERE outer_seq IS NOT NULL)
  AND seq NOT IN (SELECT grad_seq FROM _work_launch WHERE grad_seq IS NOT NULL);
DROP TABLE _work_launch;
