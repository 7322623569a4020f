-- Stages inside each layer, and each layer's kind, from the order of its kernels and their categories.
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
-- Layer kind: '<dense|moe>/<full|sliding|linear>': moe when a kernel of the layer has an MoE stage; the
-- attention kind from the anchor's name: linear (gated delta rule, linear or lightning attention, Mamba /
-- selective scan, GLA, RWKV), sliding (sliding, a separate swa, window, local attention, chunked), else full. Where the anchors
-- of a pass take turns between names that say neither (gpt-oss and Gemma kernels often don't), the kind is
-- 'variant <i>' (i: the name's order of first appearance in the pass) instead of full.
-- Inputs: _assigned (segment_assign.sql, after module_categories.sql when it ran), _rules, _anchor_pass,
--   kernels.
-- Parameters: none.
-- Output: TEMP _stages, one row per kernel of a layer (unit 'layer'):
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   stage VARCHAR: attention | ffn | router | dispatch | experts | combine | shared
-- Output: TEMP _layer_kinds, one row per (run, pass, layer):
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layer BIGINT: the layer
--   layer_kind VARCHAR: dense/full, moe/sliding, dense/linear, moe/variant 2, ...
CREATE OR REPLACE TEMP TABLE _stages AS
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
), roles AS (
    SELECT *,
        category IN ('gemm', 'gemm_quant') AS is_gemm,
        (category = 'moe' OR is_comm) AND regexp_matches(lname, 'finalize|unpermute|gather|moe_sum|combine')
            AS is_combine,
        (category IN ('moe', 'topk') OR is_comm) AND regexp_matches(lname, 'permute|align|sort|scatter|dispatch|a2a')
            AND NOT regexp_matches(lname, 'finalize|unpermute|gather|moe_sum|combine') AS is_dispatch,
        category = 'moe' AND regexp_matches(lname, 'gemm|matmul|_mm|mm_|bmm|ogs|grouped|expert|fused_moe|mlp')
            AS is_expert_gemm,
    FROM members
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
SELECT run_id, seq,
    coalesce(own,
             last_value(own IGNORE NULLS) OVER (PARTITION BY run_id, pass, layer ORDER BY pos
                                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
             first_value(own IGNORE NULLS) OVER (PARTITION BY run_id, pass, layer ORDER BY pos
                                                 ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING),
             CASE WHEN moe THEN 'router' ELSE 'ffn' END) AS stage
FROM based;

CREATE OR REPLACE TEMP TABLE _layer_kinds AS
WITH anchors AS (
    SELECT a.run_id, a.pass, s.layer, lower(coalesce(k.name, k.op_type, '')) AS lname, k.name,
        min(a.idx) OVER (PARTITION BY a.run_id, a.pass, k.name) AS first_idx
    FROM _anchor_pass a
    JOIN _assigned s ON s.run_id = a.run_id AND s.seq = a.seq AND s.unit = 'layer'
    JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
), named AS (
    SELECT *,
        CASE WHEN regexp_matches(lname, 'gated_?delta|delta_?rule|linear_?att|lightning_?att|mamba|selective_?scan|'
                                        || 'ssd_|chunk_?scan|_gla|gla_|rwkv|retention') THEN 'linear'
             WHEN regexp_matches(lname, 'sliding|(^|[^a-z])swa([^a-z]|$)|window|local_?att|chunked') THEN 'sliding'
        END AS said,
        dense_rank() OVER (PARTITION BY run_id, pass ORDER BY first_idx) AS variant,
        count(DISTINCT name) OVER (PARTITION BY run_id, pass) AS names
    FROM anchors
), attn AS (
    -- a layer's attention kind: its first anchor's (blocks per layer > 1: the layer's first block)
    SELECT run_id, pass, layer, arg_min(said, variant) AS said, min(variant) AS variant, max(names) AS names,
        bool_or(bool_or(said IS NOT NULL)) OVER (PARTITION BY run_id, pass) AS any_said
    FROM named GROUP BY run_id, pass, layer
), ffn AS (
    SELECT a.run_id, a.pass, a.layer,
        bool_or(s.stage IN ('router', 'dispatch', 'experts', 'combine', 'shared')) AS moe
    FROM _assigned a JOIN _stages s USING (run_id, seq)
    GROUP BY a.run_id, a.pass, a.layer
)
SELECT f.run_id, f.pass, f.layer,
    CASE WHEN f.moe THEN 'moe' ELSE 'dense' END || '/' ||
        coalesce(t.said, CASE WHEN t.names > 1 AND NOT t.any_said THEN 'variant ' || t.variant ELSE 'full' END)
        AS layer_kind
FROM ffn f LEFT JOIN attn t USING (run_id, pass, layer);
