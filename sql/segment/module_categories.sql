-- Categories by name, then by module: a kernel whose name says nothing of its role (elementwise, reduce,
-- copy, memset: category 'other' by name) takes the category its launching module's class gives under the
-- same rules (Qwen2RMSNorm -> norm, Qwen2RotaryEmbedding -> rope, SiLU -> activation, ...). An eager
-- model's RMSNorm is six such kernels (pow, mean, add, rsqrt, mul, copy): 'other' by name alone.
-- Inputs: _assigned, _attr (attribute_modules.sql: over every kernel of the runs, or over
--   attribute_scope_other.sql's scope, the assigned 'other' kernels; only those are read), _rules.
-- Parameters:
--   $other_ord INTEGER: cat_ord of 'other'
-- Output: _assigned.cat_ord updated.
-- Output: TEMP _by_module, what moved, one row per category kernels moved to, then one row for what
--   stays 'other':
--   category VARCHAR: the category; NULL: the 'other' kernels launched outside any nn.Module frame, which
--     stay 'other'
--   kernels BIGINT: kernels
--   ns HUGEINT: their time
CREATE OR REPLACE TEMP TABLE _by_module AS
WITH cls AS (
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
SELECT c.run_id, c.seq, k.cat_ord, c.dur_ns
FROM cls c JOIN class_category k USING (cls)
WHERE k.cat_ord <> $other_ord;
UPDATE _assigned a SET cat_ord = b.cat_ord FROM _by_module b WHERE a.run_id = b.run_id AND a.seq = b.seq;
CREATE OR REPLACE TEMP TABLE _by_module AS
SELECT r.category, count(*) AS kernels, sum(b.dur_ns) AS ns
FROM _by_module b JOIN (SELECT DISTINCT category, cat_ord FROM _rules) r USING (cat_ord)
GROUP BY ALL
UNION ALL
-- what stays 'other' for want of a module frame (a frame entered before the capture started is not in the
-- trace: a capture that starts mid-pass has none for its leading fragment)
SELECT NULL, count(*), sum(s.dur_ns)
FROM _attr a JOIN _assigned s USING (run_id, seq)
WHERE a.nn_module IS NULL AND s.cat_ord = $other_ord
HAVING count(*) > 0
ORDER BY ns DESC;
