-- Stage 4: give every kernel of the selected passes its (pass, layer, block), unit and category.
-- Blocks: block b holds the kernels starting in [boundary_b, boundary_b+1); boundary_b is anchor b's
--   start, or with a layer start offset o the start of the kernel o positions before anchor b in
--   (start_ns, seq) order (clamped to the window's first kernel). layer = block // blocks_per_layer;
--   kernels before the first boundary have no layer: the prologue; in a leading fragment (block_base > 0,
--   segment_passes.sql) they are the end of the layer before its first anchor's. Backward ($reverse): a
--   layer's first boundary moves back from its anchor (the attention gradient) to where its MLP's
--   gradients start (the bwd CTEs of _marks), so that backward layer N holds all of model layer N's
--   gradient kernels.
-- Kernels join their window and their block by ASOF JOIN keyed by run_id (a range join with a run_id
--   equality degenerates to hash join + filter: 60 s instead of 0.07 s on 673k kernels).
-- Inputs: _stream (segment_stream.sql), _windows, _anchor_pass, _passes, TEMP _sel(run_id INTEGER, pass BIGINT) (the passes to
--   assign, from tracedb.engine.segmentation.segment), _cats (categories.sql), _rules (the profile's categories),
--   _bwd_norm (backward_norm_grads.sql for a backward pass; else empty).
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
--   $layer_offset INTEGER: the layer start offset o (0: layers start at their anchor)
--   $blocks_per_layer INTEGER: anchors per layer
--   $window VARCHAR: 'strict' | 'full' (the epilogue is split off in the full window only)
--   $reverse BOOLEAN: backward passes: layers numbered by the model layer whose gradients they compute, so
--     the first backward layer to run is the last model layer (expected anchors / blocks per layer - 1)
--   $win_lo BIGINT: the earliest start of the selected windows
--   $win_hi BIGINT: the latest end of the selected windows; with $win_lo, constants the scan of kernels
--     prunes row groups with (one pass of the 1 GB trace: 0.31-0.45 s -> 0.017 s)
-- Output: TEMP _assigned, one row per kernel of the selected passes, kept narrow (2M rows for --pass
--   all): reports join kernels on (run_id, seq) for names and shapes:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layer BIGINT: block // $blocks_per_layer (with $reverse counted from the last layer); NULL: the prologue
--     and the epilogue (unit)
--   block BIGINT: the block (NULL: the prologue)
--   half BIGINT: block % $blocks_per_layer, the block within the layer
--   seq BIGINT: the kernel (kernels.seq)
--   start_ns BIGINT: its start
--   end_ns BIGINT: its end
--   dur_ns BIGINT: its duration
--   is_comm BOOLEAN: communication: logged as such (Ascend hcom rows) or named so (NCCL/RCCL kernels, by
--     category)
--   cat_ord INTEGER: its category (_rules.cat_ord): by name (_cats); module_categories.sql may update it
--   unit VARCHAR: prologue (no layer), layer, or epilogue: in the full window, the kernels of the last block
--     after the layer's own work (final norm, lm_head, logits, sampling; a pipeline stage's send). The last
--     block is laid beside the latest earlier block with the same anchor name (in a backward pass both from
--     their anchors on, past the MLP gradients a dense and an MoE layer differ in): it ends at the first kernel
--     whose name (digits aside) that block holds no more of, in any order, or that runs over 3x (+5 us)
--     longer than the name does there (communication ops aside: their time includes waiting), and, in a
--     forward pass, at the latest where the reference block's tail that the prologue also ends with begins
--     (the work before an anchor: input norm, QKV projection, rope, which no next layer holds). An epilogue
--     kernel has no layer: every report keys its units on (layer, unit).
-- TEMP _marks (block boundaries), _blocked and _epilogue are scratch: no other file reads them.
CREATE OR REPLACE TEMP TABLE _member AS
WITH w AS (
    SELECT w.* FROM _windows w JOIN _sel s USING (run_id, pass)
)
-- communication: logged as such (Ascend hcom rows) or named so (NCCL/RCCL kernels, by category)
SELECT k.run_id, w.pass, k.seq, k.start_ns, k.dur_ns, k.kind = 'comm' OR c.category = 'communication' AS is_comm,
    c.cat_ord, k.name, k.op_type
FROM _stream k ASOF JOIN w ON k.run_id = w.run_id AND k.start_ns >= w.win_start
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.start_ns <= w.win_end AND k.start_ns BETWEEN $win_lo AND $win_hi;
CREATE OR REPLACE TEMP TABLE _marks AS
WITH offset_starts AS (
    SELECT run_id, pass, seq,
        coalesce(lag(start_ns, $layer_offset) OVER (PARTITION BY run_id, pass ORDER BY start_ns, seq),
                 min(start_ns) OVER (PARTITION BY run_id, pass)) AS bstart
    FROM _member WHERE $layer_offset > 0
), boundaries AS (
    SELECT a.run_id, a.pass, a.block, a.start_ns AS bstart
    FROM _anchor_pass a JOIN _sel s USING (run_id, pass) WHERE $layer_offset = 0
    UNION ALL
    SELECT a.run_id, a.pass, a.block, o.bstart
    FROM _anchor_pass a JOIN offset_starts o USING (run_id, pass, seq) WHERE $layer_offset > 0
)
, bwd AS (
    -- backward ($reverse): a layer's gradients start with its MLP's, before its attention gradient (the
    -- anchor). Between two anchors run the previous layer's attention-side gradients (rope, q/k-norm, QKV,
    -- input norm) and then this layer's MLP gradients (down projection, activation, gate-up; MoE: combine,
    -- experts, dispatch) and post-attention norm. The cut is after the last norm gradient before the first
    -- activation gradient, at the first kernel that is neither a norm nor 'other' (the residual adds and
    -- casts that follow a norm gradient are its own). With no norm before the activation, the pass's first
    -- layer starts with the pass (a first pipeline stage, a DualPipe chunk: no final norm or loss, the pass
    -- opens with the last layer's MLP or MoE gradient, its all-to-all included), a later one at its first
    -- GEMM/MoE/activation kernel. Megatron's Qwen3 stage 0: each backward layer held the next-lower layer's
    -- 14 MLP, post-attention norm and o-projection kernels, and the prologue the top layer's (21 vs 36
    -- kernels in layer 0); DualPipe: a 26.9 ms prologue of layer 3's MoE gradient.
    -- Only the first block of a layer moves, and only with $layer_offset 0; no activation kernel: no move.
    SELECT m.run_id, m.pass, nxt.block, m.start_ns, m.seq,
        -- a norm's gradient that only its autograd node names (backward_norm_grads.sql)
        CASE WHEN bn.seq IS NOT NULL AND c.category = 'other' THEN 'norm' ELSE c.category END AS category
    FROM _member m JOIN (SELECT DISTINCT cat_ord, category FROM _rules) c USING (cat_ord)
    LEFT JOIN _bwd_norm bn ON bn.run_id = m.run_id AND bn.seq = m.seq
    ASOF JOIN (SELECT a.run_id, a.pass, a.block, a.start_ns AS bstart FROM _anchor_pass a JOIN _sel s USING (run_id, pass)) nxt
        ON nxt.run_id = m.run_id AND nxt.pass = m.pass AND m.start_ns < nxt.bstart
    WHERE $reverse AND $layer_offset = 0 AND nxt.block % $blocks_per_layer = 0
), bwd_act AS (
    SELECT run_id, pass, block, min(start_ns) FILTER (WHERE category = 'activation') AS act_ns FROM bwd GROUP BY ALL
), bwd_norm AS (
    SELECT b.run_id, b.pass, b.block, a.act_ns, max(b.start_ns) FILTER (WHERE b.category = 'norm' AND b.start_ns < a.act_ns) AS norm_ns
    FROM bwd b JOIN bwd_act a USING (run_id, pass, block) WHERE a.act_ns IS NOT NULL GROUP BY ALL
), bwd_cut AS (
    SELECT b.run_id, b.pass, b.block, min(b.start_ns) AS cut_ns
    FROM bwd b JOIN bwd_norm n USING (run_id, pass, block)
    JOIN (SELECT run_id, pass, min(block) AS first_block FROM bwd GROUP BY ALL) f USING (run_id, pass)
    WHERE b.start_ns <= n.act_ns AND (n.norm_ns IS NULL AND (b.block = f.first_block
            OR b.category IN ('gemm', 'gemm_quant', 'moe', 'activation'))
        OR n.norm_ns IS NOT NULL AND b.start_ns > n.norm_ns AND b.category NOT IN ('norm', 'other'))
    GROUP BY ALL
), moved AS (
    SELECT m.run_id, m.pass, m.block, coalesce(c.cut_ns, m.bstart) AS bstart
    FROM boundaries m LEFT JOIN bwd_cut c USING (run_id, pass, block)
)
-- two anchors on one boundary (same start): the later block owns it
SELECT run_id, pass, bstart, max(block) AS block FROM moved GROUP BY ALL;
CREATE OR REPLACE TEMP TABLE _blocked AS
WITH blocked AS (
    -- before the first boundary: the prologue, or in a leading fragment the end of the layer before its first
    SELECT m.*, coalesce(b.block, CASE WHEN p.block_base > 0 THEN p.block_base - 1 END) AS block
    FROM _member m ASOF LEFT JOIN _marks b ON m.run_id = b.run_id AND m.pass = b.pass AND m.start_ns >= b.bstart
    JOIN _passes p ON p.run_id = m.run_id AND p.pass = m.pass
)
SELECT *, row_number() OVER (PARTITION BY run_id, pass, block ORDER BY start_ns, seq) - 1 AS pos FROM blocked;
CREATE OR REPLACE TEMP TABLE _epilogue AS
WITH last_block AS (
    SELECT run_id, pass, max(block) AS lb FROM _blocked WHERE block IS NOT NULL GROUP BY ALL
), anchor_names AS MATERIALIZED (
    -- each anchor's kernel name, joined once before the self-join below: with both joins of _blocked inside
    -- it, DuckDB's planner put a join on run_id alone first at 1,024 ranks (a 2.5e13-row estimate): 250 s
    -- and 20 GB, where 512 ranks took 1.8 s
    SELECT a.run_id, a.pass, a.block, k.name, k.pos
    FROM _anchor_pass a JOIN _blocked k ON k.run_id = a.run_id AND k.seq = a.seq
), ref_block AS MATERIALIZED (
    -- the latest earlier block of the pass whose anchor has the last block's anchor name
    SELECT l.run_id, l.pass, l.lb, max(a2.block) AS rb
    FROM last_block l
    JOIN anchor_names a1 ON a1.run_id = l.run_id AND a1.pass = l.pass AND a1.block = l.lb
    JOIN anchor_names a2 ON a2.run_id = l.run_id AND a2.pass = l.pass AND a2.block < l.lb
     AND a2.name IS NOT DISTINCT FROM a1.name
    GROUP BY ALL
), ref AS MATERIALIZED (
    -- where each of the two blocks is compared from: a forward block from its start; a backward one from
    -- its anchor, as the kernels before it are its MLP's gradients, which differ between a dense layer and an
    -- MoE one (a model whose first layer is dense: model layer 0, the last backward block, has dense MLP
    -- gradients where the reference, layer 1, has the experts'), while those after it (attention, QKV and
    -- input norm gradients) are alike in every layer, and the epilogue can only follow them
    SELECT r.*, CASE WHEN $reverse THEN la.pos ELSE 0 END AS l_from, CASE WHEN $reverse THEN ra.pos ELSE 0 END AS r_from
    FROM ref_block r
    JOIN (SELECT run_id, pass, block, min(pos) AS pos FROM anchor_names GROUP BY ALL) la
      ON la.run_id = r.run_id AND la.pass = r.pass AND la.block = r.lb
    JOIN (SELECT run_id, pass, block, min(pos) AS pos FROM anchor_names GROUP BY ALL) ra
      ON ra.run_id = r.run_id AND ra.pass = r.pass AND ra.block = r.rb
), named AS MATERIALIZED (
    -- the kernels' names come with _blocked (_member): the kernels view joined here again and again cost 2 s
    -- and 1.8 GB over a job of 128 ranks
    SELECT b.run_id, b.pass, b.block, b.pos, b.dur_ns, b.is_comm,
        regexp_replace(coalesce(b.name, b.op_type), '\d+', '#', 'g') AS name,
        b.start_ns, b.seq
    FROM _blocked b JOIN ref r ON r.run_id = b.run_id AND r.pass = b.pass
     AND (b.block = r.lb OR b.block = r.rb OR b.block IS NULL)
), matched AS (
    -- the last block follows the reference while each kernel's name (digits aside: HCCL numbers its ops,
    -- hcom_allReduce__170_1_1) is one the reference has not used up yet, in any order (a DualPipe chunk
    -- reorders a layer's kernels around the other chunk's), and it runs no more than 3x (+5 us) longer
    -- than that name does there (a communication op whatever its time: it includes the wait for a late rank)
    SELECT c.run_id, c.pass,
        min(c.pos) FILTER (WHERE rk.n IS NULL OR c.nth > rk.n OR NOT c.is_comm AND c.dur_ns > 3 * rk.max_dur + 5000) AS miss
    FROM (SELECT n.*, row_number() OVER (PARTITION BY n.run_id, n.pass, n.name ORDER BY n.pos) AS nth
          FROM named n JOIN ref r ON r.run_id = n.run_id AND r.pass = n.pass AND n.block = r.lb
          WHERE n.pos >= r.l_from) c
    LEFT JOIN (SELECT n.run_id, n.pass, n.name, count(*) AS n, max(n.dur_ns) AS max_dur
               FROM named n JOIN ref r ON r.run_id = n.run_id AND r.pass = n.pass AND n.block = r.rb
               WHERE n.pos >= r.r_from
               GROUP BY ALL) rk ON rk.run_id = c.run_id AND rk.pass = c.pass AND rk.name IS NOT DISTINCT FROM c.name
    GROUP BY ALL
), backs AS (
    -- the prologue and the reference block read from their ends: their common tail is the work before an
    -- anchor (norm, QKV projection, rope), which the last block has no next layer to hold
    SELECT n.run_id, n.pass, CASE WHEN n.block IS NULL THEN 'pro' ELSE 'ref' END AS side, n.name,
        row_number() OVER (PARTITION BY n.run_id, n.pass, n.block IS NULL ORDER BY n.start_ns DESC, n.seq DESC) AS back
    FROM named n JOIN ref r ON r.run_id = n.run_id AND r.pass = n.pass AND (n.block IS NULL OR n.block = r.rb)
), tail AS (
    SELECT p.run_id, p.pass, coalesce(min(p.back) FILTER (WHERE q.name IS DISTINCT FROM p.name), max(p.back) + 1) - 1 AS o
    FROM backs p LEFT JOIN backs q ON q.run_id = p.run_id AND q.pass = p.pass AND q.side = 'ref' AND q.back = p.back
    WHERE p.side = 'pro'
    GROUP BY ALL
), ref_len AS (
    SELECT b.run_id, b.pass, count(*) AS n FROM _blocked b JOIN ref r ON r.run_id = b.run_id AND r.pass = b.pass
     AND b.block = r.rb GROUP BY ALL
)
SELECT r.run_id, r.pass, r.lb AS block,
    -- the prologue's tail is the work before a forward anchor; a backward prologue (lm_head and final norm
    -- gradients) ends as every backward layer does, with a norm gradient that is the layer's own
    least(coalesce(m.miss, 9223372036854775807), CASE WHEN t.o > 0 AND NOT $reverse THEN greatest(n.n - t.o, 1) END)
        AS epilogue_pos
FROM ref r LEFT JOIN matched m USING (run_id, pass) LEFT JOIN tail t USING (run_id, pass) JOIN ref_len n USING (run_id, pass)
WHERE $window = 'full';
CREATE OR REPLACE TEMP TABLE _assigned AS
SELECT b.run_id, b.pass,
    CASE WHEN b.pos >= e.epilogue_pos THEN NULL
         WHEN $reverse THEN p.expected // $blocks_per_layer - 1 - b.block // $blocks_per_layer
         ELSE b.block // $blocks_per_layer END AS layer,
    b.block, b.block % $blocks_per_layer AS half,
    b.seq, b.start_ns, b.start_ns + b.dur_ns AS end_ns, b.dur_ns, b.is_comm, b.cat_ord,
    CASE WHEN b.block IS NULL THEN 'prologue' WHEN b.pos >= e.epilogue_pos THEN 'epilogue' ELSE 'layer' END AS unit
FROM _blocked b LEFT JOIN _epilogue e ON e.run_id = b.run_id AND e.pass = b.pass AND e.block = b.block
JOIN _passes p ON p.run_id = b.run_id AND p.pass = b.pass;
DROP TABLE _member;
DROP TABLE _blocked;
DROP TABLE _epilogue;
