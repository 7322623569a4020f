-- Categories by name, then by module: a kernel whose name says nothing of its role (elementwise, reduce,
-- copy, memset: category 'other' by name) takes the category its launching module's class gives under the
-- same rules (Qwen2RMSNorm -> norm, Qwen2RotaryEmbedding -> rope, SiLU -> activation, ...). An eager
-- model's RMSNorm is six such kernels (pow, mean, add, rsqrt, mul, copy): 'other' by name alone.
-- The launching frame also overrules two name categories: a moe-named GEMM under an attention module or
-- annotation is a GEMM (gemm_quant when its name says fp8/int8), a top-k under an MoE block, gate or
-- router is moe (routing).
-- Inputs: _assigned, _attr (attribute_modules.sql: over every kernel of the runs, or over
--   attribute_scope_other.sql's scope: the assigned other, moe and topk kernels; only those are read),
--   _rules, kernels.
-- Parameters:
--   $other_ord INTEGER: cat_ord of 'other'
--   $moe_ord INTEGER: cat_ord of 'moe' (NULL: the profile has none)
--   $topk_ord INTEGER: cat_ord of 'topk' (NULL: none)
--   $gemm_ord INTEGER: cat_ord of 'gemm' (NULL: none)
--   $gemm_quant_ord INTEGER: cat_ord of 'gemm_quant', else of 'gemm'
--   $quant_pattern VARCHAR: RE2 pattern of quantised GEMM names (fp8, int8, ...)
-- Output: _assigned.cat_ord updated.
-- Output: TEMP _by_module, what moved, one row per category kernels moved to, then one row for what
--   stays 'other':
--   category VARCHAR: the category; NULL: the 'other' kernels launched outside any nn.Module frame, which
--     stay 'other'
--   how VARCHAR: module (an 'other' kernel took its module class's category) | frame (the frame overruled
--     the name: moe under attention, topk under an MoE block)
--   kernels BIGINT: kernels
--   ns HUGEINT: their time
CREATE OR REPLACE TEMP TABLE _by_module AS
WITH framed AS (
    -- the launching frame's words: the module role and the user annotation (DualPipe's attn(F), mlp(B))
    SELECT a.run_id, a.seq, s.dur_ns, s.cat_ord, coalesce(a.annotation, '') || ' ' || coalesce(a.module, '') AS words
    FROM _attr a JOIN _assigned s USING (run_id, seq)
    WHERE s.cat_ord IN ($moe_ord, $topk_ord)
), overruled AS (
    -- a grouped or expert-looking GEMM launched under attention is attention's projection (DeepSeek's fp8
    -- attention GEMMs under attn(F): 40 kernels, 16.2 ms otherwise counted as moe); a top-k launched under
    -- an MoE block, router or gate is routing (moe), not sampling
    SELECT f.run_id, f.seq,
        CASE WHEN f.cat_ord = $moe_ord THEN CASE WHEN regexp_matches(k.name, $quant_pattern) THEN $gemm_quant_ord
                                                 ELSE $gemm_ord END
             ELSE $moe_ord END AS cat_ord, f.dur_ns
    FROM framed f JOIN kernels k USING (run_id, seq)
    WHERE (f.cat_ord = $moe_ord AND regexp_matches(f.words, '(?i)attn|attention') AND $gemm_ord IS NOT NULL)
       OR (f.cat_ord = $topk_ord AND regexp_matches(f.words, '(?i)mlp|moe|expert|gate|router|dispatch'))
), cls AS (
    -- the innermost module's class: the role's last step without its ordinal (Linear#1 -> Linear)
    SELECT a.run_id, a.seq, s.dur_ns, regexp_replace(regexp_extract(a.module, '([^/]+)$', 1), '#\d+$', '') AS cls
    FROM _attr a JOIN _assigned s USING (run_id, seq)
    WHERE s.cat_ord = $other_ord AND a.nn_module IS NOT NULL
), class_category AS (
    -- the rules run once per distinct class, not per kernel
    SELECT c.cls, arg_min(r.cat_ord, r.ord) AS cat_ord
    FROM (SELECT DISTINCT cls FROM cls) c JOIN _rules r ON r.pattern IS NOT NULL AND regexp_matches(c.cls, r.pattern)
    GROUP BY c.cls
)
SELECT c.run_id, c.seq, k.cat_ord, c.dur_ns, 'module' AS how
FROM cls c JOIN class_category k USING (cls)
WHERE k.cat_ord <> $other_ord
UNION ALL
SELECT run_id, seq, cat_ord, dur_ns, 'frame' FROM overruled;
UPDATE _assigned a SET cat_ord = b.cat_ord FROM _by_module b WHERE a.run_id = b.run_id AND a.seq = b.seq;
CREATE OR REPLACE TEMP TABLE _by_module AS
SELECT r.category, b.how, count(*) AS kernels, sum(b.dur_ns) AS ns
FROM _by_module b JOIN (SELECT DISTINCT category, cat_ord FROM _rules) r USING (cat_ord)
GROUP BY ALL
UNION ALL
-- what stays 'other' for want of a module frame (a frame entered before the capture started is not in the
-- trace: a capture that starts mid-pass has none for its leading fragment)
SELECT NULL, 'module', count(*), sum(s.dur_ns)
FROM _attr a JOIN _assigned s USING (run_id, seq)
WHERE a.nn_module IS NULL AND s.cat_ord = $other_ord
HAVING count(*) > 0
ORDER BY ns DESC;
