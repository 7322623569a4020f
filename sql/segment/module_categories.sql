-- Categories by evidence: a kernel's category is what its launching module says, else what its launching op
-- says, else what its name says (categories.sql: _assigned.cat_ord on entry). A name substring never
-- overrides a module or an op: vLLM's MoE expert GEMM bmm_..._swiGlu launched under FusedMoE (the hottest
-- kernel of an eager gpt-oss-120b decode on Blackwell, 27 % of its device time) is moe, not activation; an
-- eager RMSNorm's six elementwise kernels (pow, mean, add, rsqrt, mul, copy: 'other' by name) are norm
-- under Qwen2RMSNorm.
-- 1. module: the module classes of the kernel's innermost nn.Module frame's role, outermost first
--    ('Qwen2Model/Qwen2DecoderLayer/Qwen2Attention/Linear#1'). An MoE block anywhere on it ($moe_class:
--    FusedMoE, *SparseMoeBlock, *MoE, *Experts, *Router) makes it moe: everything launched inside the
--    block is MoE work, the module tree's share. Else the innermost class under the profile's rules
--    (Qwen2RMSNorm -> norm, SiLU -> activation, Qwen2Attention -> attention), unless it says nothing of its
--    own ($silent_class: a wrapper of both attention and MLP, a decoder layer or block, the model, a compiled
--    graph piece; a linear layer, QuantLinear too). A class no rule matches says nothing either: a
--    projection GEMM under attention is a GEMM by its op or name.
-- 2. op: the innermost cpu_op around the launch, under the op rules $op_ords/$op_patterns (aten::mm ->
--    gemm, vllm::moe_forward -> moe, aten::_flash_attention_forward -> attention, aten::silu -> activation).
-- 3. name: the category by name.
-- Communication stays what its name says, whatever launched it (its time includes waiting for the other
-- ranks); a module or op that names a collective says nothing of the kernels it launches otherwise.
-- Refinements kept from the name: a GEMM by module or op is gemm_quant when its name says quantised (its
-- category by name, or for a grouped GEMM's name $quant_pattern: fp8, int8); a kernel whose name says moe
-- (a grouped GEMM) that is a GEMM by its module or op, or launched under attention (the attention module or
-- op, or 'attn' in the launching annotation or module path: DeepSeek's fp8 attention GEMMs under attn(F),
-- 40 kernels and 16.2 ms otherwise counted as moe) is a GEMM, unless an MoE block launched it; a top-k by op
-- or name launched under an MoE block, router, gate or mlp annotation is routing (moe), not sampling.
-- Every pattern is evaluated once per distinct module role, op, annotation and name, not per kernel.
-- Inputs: _assigned, _attr (attribute_modules.sql: over every kernel of the runs, or over
--   attribute_scope_assigned.sql's scope: the assigned kernels that are not communication), _rules, kernels.
-- Parameters:
--   $other_ord INTEGER: cat_ord of 'other'
--   $comm_ord INTEGER: cat_ord of 'communication' (NULL: the profile has none)
--   $moe_ord INTEGER: cat_ord of 'moe' (NULL: none)
--   $topk_ord INTEGER: cat_ord of 'topk' (NULL: none)
--   $gemm_ord INTEGER: cat_ord of 'gemm' (NULL: none)
--   $gemm_quant_ord INTEGER: cat_ord of 'gemm_quant', else of 'gemm'
--   $attention_ord INTEGER: cat_ord of 'attention' (NULL: none)
--   $quant_pattern VARCHAR: RE2 pattern of quantised GEMM names (fp8, int8, ...)
--   $moe_class VARCHAR: RE2 pattern of the module classes of an MoE block and its parts
--   $silent_class VARCHAR: RE2 pattern of the module classes that say nothing of their own (wrappers of
--     attention and MLP, linear layers)
--   $op_ords INTEGER[]: cat_ord of each op rule, in order (the first match wins)
--   $op_patterns VARCHAR[]: RE2 pattern of each op rule, against the cpu_op name
-- Output: _assigned.cat_ord updated.
-- Output: TEMP _by_evidence, every assigned kernel counted once, one row per (evidence, category, category
--   by name, framed):
--   evidence VARCHAR: module | op | name (the kind of evidence that decided the category) | frame (the
--     name's category, refined by the launching frame: a grouped GEMM under attention, a top-k under an
--     MoE block) | none (no evidence gives a category: 'other')
--   category VARCHAR: the category
--   by_name VARCHAR: the category by name
--   framed BOOLEAN: launched inside an nn.Module frame
--   kernels BIGINT: kernels
--   ns HUGEINT: their time
-- TEMP _evidence (one row per assigned kernel) is scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _evidence AS
WITH k AS (
    SELECT s.run_id, s.seq, s.dur_ns, s.cat_ord AS name_ord,
        coalesce(s.is_comm, false) OR s.cat_ord IS NOT DISTINCT FROM $comm_ord AS comm,
        a.cpu_op, a.nn_module IS NOT NULL AS framed,
        CASE WHEN a.nn_module IS NOT NULL THEN a.module END AS role,
        -- the launching frame's words: the user annotation (DualPipe's attn(F), mlp(B)) and the module role
        coalesce(a.annotation, '') || ' ' || coalesce(a.module, '') AS words
    FROM _assigned s LEFT JOIN _attr a USING (run_id, seq)
), roles AS (
    -- each role's classes, outermost first, without their ordinals (Linear#1 -> Linear)
    SELECT role, list_transform(string_split(role, '/'), lambda c: regexp_replace(c, '#\d+$', '')) AS classes
    FROM (SELECT DISTINCT role FROM k WHERE role IS NOT NULL)
), class_rule AS (
    -- the profile's rules, once per distinct innermost class
    SELECT c.cls, arg_min(r.cat_ord, r.ord) AS cat_ord
    FROM (SELECT DISTINCT classes[-1] AS cls FROM roles) c
    JOIN _rules r ON r.pattern IS NOT NULL AND regexp_matches(c.cls, r.pattern)
    GROUP BY c.cls
), role_cat AS (
    SELECT r.role,
        CASE WHEN $moe_ord IS NOT NULL AND list_bool_or(list_transform(r.classes, lambda c: regexp_matches(c, $moe_class)))
                 THEN $moe_ord
             WHEN regexp_matches(r.classes[-1], $silent_class) THEN NULL
             ELSE c.cat_ord END AS cat_ord
    FROM roles r LEFT JOIN class_rule c ON c.cls = r.classes[-1]
), op_rules AS (
    SELECT unnest($op_ords) AS cat_ord, unnest($op_patterns) AS pattern, unnest(range(len($op_ords))) AS ord
), op_cat AS (
    SELECT o.cpu_op, arg_min(r.cat_ord, r.ord) AS cat_ord
    FROM (SELECT DISTINCT cpu_op FROM k WHERE cpu_op IS NOT NULL) o
    JOIN op_rules r ON regexp_matches(o.cpu_op, r.pattern)
    GROUP BY o.cpu_op
), words AS (
    SELECT words, regexp_matches(words, '(?i)attn|attention') AS attn,
        regexp_matches(words, '(?i)mlp|moe|expert|gate|router|dispatch') AS routing
    FROM (SELECT DISTINCT words FROM k)
), decided AS (
    -- a module or op that names a collective or nothing says nothing
    SELECT k.*, w.attn, w.routing,
        CASE WHEN NOT k.comm AND rc.cat_ord IS DISTINCT FROM $comm_ord THEN rc.cat_ord END AS module_ord,
        CASE WHEN NOT k.comm AND oc.cat_ord IS DISTINCT FROM $comm_ord THEN oc.cat_ord END AS op_ord
    FROM k
    LEFT JOIN role_cat rc USING (role)
    LEFT JOIN op_cat oc USING (cpu_op)
    JOIN words w USING (words)
), chosen AS (
    SELECT *,
        CASE WHEN module_ord IS NOT NULL THEN 'module' WHEN op_ord IS NOT NULL THEN 'op' ELSE 'name' END AS evidence,
        coalesce(module_ord, op_ord, name_ord) AS cat0
    FROM decided
), grouped_gemm AS (
    -- kernels named as MoE that are GEMMs by their module or op, or launched under attention (not by an MoE
    -- block): their names, once each, for the quantised-GEMM pattern
    SELECT c.run_id, c.seq, c.cat0 <> $gemm_ord AS by_frame, kn.name
    FROM chosen c JOIN kernels kn USING (run_id, seq)
    WHERE c.name_ord = $moe_ord AND $gemm_ord IS NOT NULL AND NOT (c.evidence = 'module' AND c.cat0 = $moe_ord)
      AND (c.cat0 IN ($attention_ord, $gemm_ord) OR c.cat0 = $moe_ord AND c.attn)
), quant_names AS (
    SELECT name, regexp_matches(name, $quant_pattern) AS quant FROM (SELECT DISTINCT name FROM grouped_gemm)
), refined AS (
    SELECT c.run_id, c.seq, c.dur_ns, c.name_ord, c.framed,
        CASE WHEN g.seq IS NOT NULL THEN CASE WHEN q.quant THEN $gemm_quant_ord ELSE $gemm_ord END
             WHEN c.cat0 = $topk_ord AND c.evidence <> 'module' AND c.routing THEN $moe_ord
             WHEN c.cat0 = $gemm_ord AND c.name_ord = $gemm_quant_ord THEN $gemm_quant_ord
             ELSE c.cat0 END AS cat_ord,
        CASE WHEN g.by_frame OR c.cat0 = $topk_ord AND c.evidence <> 'module' AND c.routing THEN 'frame'
             ELSE c.evidence END AS evidence
    FROM chosen c
    LEFT JOIN grouped_gemm g USING (run_id, seq)
    LEFT JOIN quant_names q ON q.name = g.name
)
SELECT run_id, seq, dur_ns, name_ord, framed, cat_ord,
    CASE WHEN cat_ord = $other_ord THEN 'none' ELSE evidence END AS evidence
FROM refined;
UPDATE _assigned a SET cat_ord = e.cat_ord FROM _evidence e
WHERE a.run_id = e.run_id AND a.seq = e.seq AND a.cat_ord IS DISTINCT FROM e.cat_ord;
CREATE OR REPLACE TEMP TABLE _by_evidence AS
SELECT e.evidence, r.category, n.category AS by_name, e.framed, count(*) AS kernels, sum(e.dur_ns) AS ns
FROM _evidence e
JOIN (SELECT DISTINCT category, cat_ord FROM _rules) r ON r.cat_ord = e.cat_ord
JOIN (SELECT DISTINCT category, cat_ord FROM _rules) n ON n.cat_ord = e.name_ord
GROUP BY ALL
ORDER BY ns DESC;
DROP TABLE _evidence;
