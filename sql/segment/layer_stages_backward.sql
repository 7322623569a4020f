-- Stages inside each layer of a backward pass. A backward layer (segment_assign.sql) holds one model layer's
-- gradients in the reverse of the forward order: its MLP or MoE gradients first (down projection, activation,
-- gate/up projection; for MoE the combine, the experts, the dispatch and the router), then the gradient of the
-- norm before them (the post-attention norm), then its attention gradients (output projection, the attention
-- gradient that anchors the layer, rope, the QKV projection) and the input norm's gradient.
--   ffn / MoE stages  the kernels before the last norm gradient ahead of the anchor: an MoE layer's (a kernel
--                     of category moe among them) split by name as forward layers are (dispatch: permute,
--                     align, sort, scatter, all-to-all; combine: finalize, unpermute, gather, moe_sum; experts:
--                     category moe; shared: other GEMMs), the rest taking the stage of the closest such kernel
--                     before them (after them when none is before; router when none)
--   attention         from that norm gradient to the end of the layer
-- A layer with no norm gradient before its anchor starts its attention at the last GEMM before the anchor
-- (the output projection's gradient). Norm gradients are known by category (norm) or, for unfused norms whose
-- kernels are plain mul, rsqrt and mean kernels, by their autograd node (_bwd_norm).
-- Inputs: _assigned (segment_assign.sql over backward passes), _rules, _anchor_pass, _bwd_norm
--   (backward_norm_grads.sql), kernels.
-- Parameters: none.
-- Output: TEMP _stage_own, one row per kernel of a layer (unit 'layer'), for layer_stage_fill.sql:
--   run_id INTEGER: the run
--   pass BIGINT: its pass
--   layer BIGINT: its layer
--   seq BIGINT: the kernel (kernels.seq)
--   pos BIGINT: its place in the layer, from 1
--   moe BOOLEAN: the layer's second half (forward) or first half (backward) launches MoE kernels
--   own VARCHAR: the stage the kernel names by itself and its place; NULL: none (layer_stage_fill.sql)
CREATE OR REPLACE TEMP TABLE _stage_own AS
WITH cats AS (
    SELECT DISTINCT cat_ord, category FROM _rules
), members AS (
    SELECT a.run_id, a.pass, a.layer, a.seq, c.category, a.is_comm,
        lower(coalesce(k.name, k.op_type, '')) AS lname,
        row_number() OVER (PARTITION BY a.run_id, a.pass, a.layer ORDER BY a.start_ns, a.seq) AS pos,
        an.seq IS NOT NULL AS is_anchor,
        c.category = 'norm' OR bn.seq IS NOT NULL AS is_norm
    FROM _assigned a
    JOIN cats c ON c.cat_ord = a.cat_ord
    JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
    LEFT JOIN _anchor_pass an ON an.run_id = a.run_id AND an.seq = a.seq
    LEFT JOIN _bwd_norm bn ON bn.run_id = a.run_id AND bn.seq = a.seq
    WHERE a.unit = 'layer'
), anchored AS (
    SELECT *, min(pos) FILTER (WHERE is_anchor) OVER (PARTITION BY run_id, pass, layer) AS anchor_pos
    FROM members
), marks AS (
    SELECT run_id, pass, layer,
        max(pos) FILTER (WHERE is_norm AND pos < anchor_pos) AS norm_pos,
        max(pos) FILTER (WHERE category IN ('gemm', 'gemm_quant') AND pos < anchor_pos) AS gemm_pos,
        count(*) FILTER (WHERE category = 'moe' AND pos < anchor_pos) > 0 AS moe
    FROM anchored GROUP BY ALL
), placed AS (
    SELECT a.*, m.moe, coalesce(m.norm_pos, m.gemm_pos, a.anchor_pos, 1) AS attn_from
    FROM anchored a JOIN marks m USING (run_id, pass, layer)
), based AS (
    SELECT *,
        CASE WHEN pos >= attn_from THEN 'attention'
             WHEN NOT moe THEN 'ffn'
             WHEN (category = 'moe' OR is_comm) AND regexp_matches(lname, 'finalize|unpermute|gather|moe_sum|combine')
                 THEN 'combine'
             WHEN (category IN ('moe', 'topk') OR is_comm) AND regexp_matches(lname, 'permute|align|sort|scatter|dispatch|a2a')
                 THEN 'dispatch'
             WHEN category = 'moe' THEN 'experts'
             WHEN category IN ('gemm', 'gemm_quant') THEN 'shared' END AS own
    FROM placed
)
SELECT run_id, pass, layer, seq, pos, moe, own FROM based;
