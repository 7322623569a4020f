-- Stages inside each layer of a forward pass, from the order of its kernels and their categories.
-- A layer (block b: from its anchor to the next one) runs, in order:
--   attention  the anchor (attention) and what follows it up to the first norm after it: the rest of the
--              attention kernels, the output projection, a tensor-parallel all-reduce;
--   ffn        a dense layer's second half: from that norm (post-attention norm) on: gate/up and down
--              projections, the activation between them;
--   MoE stages a layer whose second half launches MoE kernels (category moe) splits it further, as the trace
--              shows them: router (what runs before the first dispatch or expert GEMM: the norm, the router
--              GEMM, top-k / gating and routing bookkeeping), dispatch (permute, align, sort, scatter, DeepEP
--              or all-to-all dispatch), experts (the expert GEMMs and what runs between them: activation,
--              quantisation),
--              combine (finalize, unpermute, gather, moe_sum, DeepEP or all-to-all combine), shared (dense
--              GEMMs beside the experts: shared experts, and what runs between them);
--   attention  again for the tail: from the first norm after the second half's first GEMM or MoE kernel on,
--              the next layer's input norm, QKV projection, rope and KV-cache write (they run before the
--              next anchor, so they sit in this block; they are attention work all the same).
-- A layer with no norm after its anchor ends its attention at the first GEMM after the anchor (the output
-- projection) and has no tail. Kernels of the prologue and the epilogue have no stage.
-- Each layer's kind: layer_kinds.sql, over these stages.
-- Inputs: _assigned (segment_assign.sql, after module_categories.sql when it ran), _rules, _anchor_pass,
--   kernels.
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
    SELECT a.run_id, a.pass, a.layer, a.seq, a.start_ns, c.category, a.is_comm,
        lower(coalesce(k.name, k.op_type, '')) AS lname,
        row_number() OVER (PARTITION BY a.run_id, a.pass, a.layer ORDER BY a.start_ns, a.seq) AS pos,
        an.seq IS NOT NULL AS is_anchor
    FROM _assigned a
    JOIN cats c ON c.cat_ord = a.cat_ord
    JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
    LEFT JOIN _anchor_pass an ON an.run_id = a.run_id AND an.seq = a.seq
    WHERE a.unit = 'layer'
), named AS (
    -- what each name says, once a name: the patterns over every kernel row took 0.25 of this statement's
    -- 0.36 s on a 128-rank job (211 k kernels of 17 names)
    SELECT lname, regexp_matches(lname, 'finalize|unpermute|gather|moe_sum|combine') AS says_combine,
        regexp_matches(lname, 'permute|align|sort|scatter|dispatch|a2a') AS says_dispatch,
        regexp_matches(lname, 'gemm|matmul|_mm|mm_|bmm|ogs|grouped|expert|fused_moe|mlp') AS says_expert_gemm
    FROM (SELECT DISTINCT lname FROM members)
), roles AS (
    SELECT m.*,
        m.category IN ('gemm', 'gemm_quant') AS is_gemm,
        (m.category = 'moe' OR m.is_comm) AND n.says_combine AS is_combine,
        (m.category IN ('moe', 'topk') OR m.is_comm) AND n.says_dispatch AND NOT n.says_combine AS is_dispatch,
        m.category = 'moe' AND n.says_expert_gemm AS is_expert_gemm,
    FROM members m JOIN named n USING (lname)
), marks AS (
    -- per layer: the anchor, the first norm after it, the first GEMM after it, the second half's first
    -- GEMM / MoE kernel, and the first norm after that (the tail)
    SELECT run_id, pass, layer,
        min(pos) FILTER (WHERE is_anchor) AS anchor_pos,
        count(*) FILTER (WHERE category = 'moe') > 0 AS moe
    FROM roles GROUP BY run_id, pass, layer
), marks2 AS (
    SELECT m.*,
        (SELECT min(r.pos) FROM roles r WHERE r.run_id = m.run_id AND r.pass = m.pass AND r.layer = m.layer
           AND r.pos > coalesce(m.anchor_pos, 1) AND r.category = 'norm') AS norm1,
        (SELECT min(r.pos) FROM roles r WHERE r.run_id = m.run_id AND r.pass = m.pass AND r.layer = m.layer
           AND r.pos > coalesce(m.anchor_pos, 1) AND r.is_gemm) AS gemm1
    FROM marks m
), marks3 AS (
    SELECT m.*,
        (SELECT min(r.pos) FROM roles r WHERE r.run_id = m.run_id AND r.pass = m.pass AND r.layer = m.layer
           AND r.pos > m.norm1 AND (r.is_gemm OR r.category = 'moe')) AS work1
    FROM marks2 m
), marks4 AS (
    SELECT m.*,
        (SELECT min(r.pos) FROM roles r WHERE r.run_id = m.run_id AND r.pass = m.pass AND r.layer = m.layer
           AND r.pos > m.work1 AND r.category = 'norm') AS tail,
        -- the router is what runs before the first dispatch or expert GEMM: the norm, the router GEMM,
        -- top-k / gating and the routing bookkeeping
        (SELECT min(r.pos) FROM roles r WHERE r.run_id = m.run_id AND r.pass = m.pass AND r.layer = m.layer
           AND r.pos > m.norm1 AND (r.is_dispatch OR r.is_expert_gemm)) AS first_expert
    FROM marks3 m
), marks5 AS (
    SELECT m.*, m.first_expert - 1 AS router_end FROM marks4 m
), placed AS (
    SELECT r.run_id, r.pass, r.layer, r.seq, r.pos, r.is_gemm, r.category, r.is_dispatch, r.is_combine,
        m.moe, m.router_end,
        CASE WHEN m.norm1 IS NULL THEN CASE WHEN r.pos <= coalesce(m.gemm1, 9223372036854775807) THEN 'attention' END
             WHEN r.pos < m.norm1 OR r.pos >= coalesce(m.tail, 9223372036854775807) THEN 'attention' END AS fixed
    FROM roles r JOIN marks5 m USING (run_id, pass, layer)
), based AS (
    -- the kernels that name an MoE stage by themselves; the rest of an MoE half take the stage of the
    -- closest such kernel before them (after it when none is before)
    SELECT *,
        CASE WHEN fixed IS NOT NULL THEN fixed
             WHEN NOT moe THEN 'ffn'
             WHEN router_end IS NOT NULL AND pos <= router_end THEN 'router'
             WHEN is_dispatch THEN 'dispatch'
             WHEN is_combine THEN 'combine'
             WHEN category = 'moe' THEN 'experts'
             WHEN is_gemm THEN 'shared' END AS own
    FROM placed
)
SELECT run_id, pass, layer, seq, pos, moe, own FROM based;
