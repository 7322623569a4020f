-- Each layer's kind, after its stages (layer_stages.sql, layer_stages_backward.sql): '<dense|moe>/<full|sliding|linear>':
-- moe when a kernel of the layer has an MoE stage; the attention kind from the anchor's name: linear (gated delta
-- rule, linear or lightning attention, Mamba / selective scan, GLA, RWKV), sliding (sliding, a separate swa,
-- window, local attention, chunked), else full. Where the anchors of a pass take turns between names that say
-- neither (gpt-oss and Gemma kernels often don't), the kind is 'variant <i>' (i: the name's order of first
-- appearance in the pass) instead of full.
-- Inputs: _assigned, _stages, _anchor_pass, kernels.
-- Parameters: none.
-- Output: TEMP _layer_kinds, one row per (run, pass, layer):
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layer BIGINT: the layer
--   layer_kind VARCHAR: dense/full, moe/sliding, dense/linear, moe/variant 2, ...
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
