-- Categories of kernel names: the first rule (in ord order) whose RE2 pattern matches the name or the op
-- type gives the category, else 'other'. Evaluated once per distinct (name, op_type), not per kernel.
-- Inputs: TEMP _names(name VARCHAR, op_type VARCHAR) and TEMP _rules(ord INTEGER, category VARCHAR, pattern
--   VARCHAR, cat_ord INTEGER) (one 'other' row, NULL pattern), both made by tracedb.engine.segmentation.segment.
-- Parameters: none.
-- Output: TEMP _cats, one row per row of _names:
--   name VARCHAR: the kernel name
--   op_type VARCHAR: its op type (NULL for a GPU kernel)
--   cat_ord INTEGER: the category's position in the profile's category order (_rules.cat_ord)
--   category VARCHAR: the category
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
