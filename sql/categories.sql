-- Categories of kernel names: the first rule (in ord order) whose RE2 pattern matches the name or the op
-- type gives the category, else 'other'. Evaluated once per distinct (name, op_type), not per kernel.
-- Inputs: _names(name, op_type), _rules(ord, category, pattern, cat_ord) (one 'other' row, NULL pattern).
-- Output: TEMP _cats(name, op_type, cat_ord, category).
CREATE OR REPLACE TEMP TABLE _cats AS
WITH matched AS (
    SELECT n.name, n.op_type, coalesce(arg_min(r.cat_ord, r.ord), max(o.cat_ord)) AS cat_ord
    FROM _names n
    LEFT JOIN _rules r
        ON regexp_matches(coalesce(n.name, ''), r.pattern) OR regexp_matches(coalesce(n.op_type, ''), r.pattern)
    CROSS JOIN (SELECT cat_ord FROM _rules WHERE category = 'other') o
    GROUP BY ALL
)
SELECT m.*, c.category FROM matched m JOIN (SELECT DISTINCT cat_ord, category FROM _rules) c USING (cat_ord);
