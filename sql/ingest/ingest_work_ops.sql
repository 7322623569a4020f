-- The work of one Chrome/Kineto run's kernels from the shapes of the PyTorch op that launched each (its
-- `Input Dims`, `Input type` and `Concrete Inputs`, kept in trace_events.extra_args by ingest_chrome_part),
-- into kernel_work_rows; then the shapes of the cpu_ops that launched no kernel are dropped (they answer nothing).
-- 1. launch: the runtime/driver call with the kernel's correlation id (launch_call), and the innermost cpu_op
--    with shapes around it on the calling thread (start <= call <= end, the shortest). The join is a hash
--    join on (thread, 1 ms bucket) plus the range condition: each op is listed once per bucket it covers.
-- 2. the op's work (docs/roofline.md), from its logical shapes (PyTorch records them untransposed):
--    gemm 2MNK: aten::mm, bmm, _scaled_mm, matmul (A, B the first two inputs), addmm, baddbmm (the second
--      and third), linear (input [..., K], weight [N, K]: 2 * |input| * N); bytes A + B + output;
--    attention [causal] 4BHSqSkD: aten::_flash_attention_forward (q [B,Sq,H,D], k [B,Sk,Hk,D], is_causal
--      the 9th input), aten::_scaled_dot_product_flash_attention (q [B,H,Sq,D], is_causal the 5th);
--      backward 10BHSqSkD: aten::_flash_attention_backward (q, k the 2nd and 3rd inputs, is_causal the
--      12th); causal halves it; variable lengths (3-D q) give NULL;
--    memory r+w: elementwise ops that are not in place (add, mul, sub, div, neg, rsqrt, sqrt, pow, exp, silu,
--      gelu, relu, sigmoid, tanh, where): bytes of every tensor input plus an output like the largest one.
-- 3. an op that launched several kernels (split-K and its reduce, a GEMM and a cast): its FLOPs and bytes go
--    once, to the longest of its kernels; the others get 0 and say so in flops_source.
-- Inputs: trace_events.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: the run's rows in kernel_work_rows (columns: migrate_8_to_9.sql); trace_events.extra_args set to NULL
--   on the run's cpu_ops with shapes that launched no kernel.
CREATE OR REPLACE TEMP TABLE _work_launch AS
WITH calls AS (
    SELECT k.seq, k.dur_ns, h.pid, h.tid, h.start_ns AS t
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
)
SELECT c.seq, c.dur_ns, o.op_seq, o.name AS op_name, o.extra_args
FROM calls c
JOIN ops o ON o.pid = c.pid AND o.tid = c.tid AND o.bucket = c.t // 1000000 AND o.start_ns <= c.t AND c.t <= o.end_ns
QUALIFY row_number() OVER (PARTITION BY c.seq ORDER BY o.dur_ns, o.start_ns DESC, o.op_seq) = 1;
INSERT INTO kernel_work_rows (run_id, seq, flops, bytes, flops_source, dtype)
WITH ops AS (
    SELECT DISTINCT op_seq, op_name,
        TRY_CAST(json_extract(extra_args, '$.dims') AS BIGINT[][]) AS dims,
        TRY_CAST(json_extract(extra_args, '$.types') AS VARCHAR[]) AS types,
        TRY_CAST(json_extract(extra_args, '$.concrete') AS VARCHAR[]) AS concrete
    FROM _work_launch
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
), work AS (
    SELECT op_seq,
        CASE WHEN is_gemm AND len(a) >= 2 AND len(b) >= 2 AND a[-1] = b[-2]
             THEN 2 * a[-2]::HUGEINT * b[-1] * a[-1] * batch
             WHEN op_name = 'aten::linear' AND len(a) >= 1 AND len(b) = 2 AND a[-1] = b[2]
             THEN 2 * numel(a) * b[1]
             WHEN causal_at IS NOT NULL AND len(q) = 4 AND len(k) = 4 AND concrete[causal_at] IN ('True', 'False')
             THEN CASE WHEN iq = 2 THEN 10 ELSE 4 END * numel(q) * CASE WHEN bhsd THEN k[3] ELSE k[2] END
                  // CASE WHEN causal THEN 2 ELSE 1 END END AS flops,
        CASE WHEN is_gemm AND len(a) >= 2 AND len(b) >= 2 AND a[-1] = b[-2]
             THEN (numel(a) + numel(b) + a[-2]::HUGEINT * b[-1] * batch) * esize
             WHEN op_name = 'aten::linear' AND len(a) >= 1 AND len(b) = 2 AND a[-1] = b[2]
             THEN (numel(a) + numel(b) + numel(a) // a[-1] * b[1]) * esize
             WHEN causal_at IS NOT NULL AND len(q) = 4 AND len(k) = 4
             THEN (2 * numel(q) + 2 * numel(k)) * esize                      -- q, k, v read, out written
             WHEN regexp_full_match(op_name, 'aten::(add|mul|sub|div|neg|rsqrt|sqrt|pow|exp|silu|gelu|relu|sigmoid|tanh|where)')
                  AND list_bool_and(list_transform(list_zip(dims, types),
                                    lambda p: p[1] = [] OR dtype_bytes(p[2]) IS NOT NULL))
             THEN list_sum(list_transform(list_zip(dims, types), lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0)))
                  + list_max(list_transform(list_zip(dims, types), lambda p: coalesce(numel(p[1]) * dtype_bytes(p[2]), 0)))
        END AS bytes,
        CASE WHEN is_gemm OR op_name = 'aten::linear' THEN 'gemm 2MNK'
             WHEN causal_at IS NOT NULL AND iq = 2 THEN CASE WHEN causal THEN 'attention bwd causal 10BHSqSkD/2' ELSE 'attention bwd 10BHSqSkD' END
             WHEN causal_at IS NOT NULL THEN CASE WHEN causal THEN 'attention causal 4BHSqSkD/2' ELSE 'attention 4BHSqSkD' END
             ELSE 'memory r+w' END AS flops_source,
        dtype_name(CASE WHEN is_gemm OR causal_at IS NOT NULL OR op_name = 'aten::linear' THEN types[ia]
                        ELSE types[1] END) AS dtype
    FROM attn_dims
)
SELECT $run_id, l.seq,
    TRY_CAST(CASE WHEN main THEN w.flops WHEN w.flops IS NOT NULL THEN 0 END AS BIGINT),
    TRY_CAST(CASE WHEN main THEN w.bytes WHEN w.bytes IS NOT NULL THEN 0 END AS BIGINT),
    CASE WHEN main THEN w.flops_source ELSE w.flops_source || ' (on its op''s longest kernel)' END, w.dtype
FROM (SELECT *, row_number() OVER (PARTITION BY op_seq ORDER BY dur_ns DESC, seq) = 1 AS main FROM _work_launch) l
JOIN work w USING (op_seq)
WHERE w.flops IS NOT NULL OR w.bytes IS NOT NULL;
UPDATE trace_events SET extra_args = NULL
WHERE run_id = $run_id AND cat = 'cpu_op' AND starts_with(extra_args, '{"dims"')
  AND seq NOT IN (SELECT op_seq FROM _work_launch);
DROP TABLE _work_launch;
