-- A profile's category rules in order, `other` last with a NULL pattern (it never matches, only names the
-- column), for categories.sql.
-- Inputs: none (the lists given).
-- Parameters:
--   $categories VARCHAR[]: the category of each rule, in order
--   $patterns VARCHAR[]: its RE2 pattern
--   $cat_ords INTEGER[]: its category's position in the profile's category order
-- Output: TEMP _rules, one row per rule:
--   ord INTEGER: the rule's position, from 0
--   category VARCHAR: its category
--   pattern VARCHAR: its pattern
--   cat_ord INTEGER: its category's position in the profile's category order
CREATE OR REPLACE TEMP TABLE _rules AS SELECT unnest(range(len($categories)))::INTEGER AS ord,
    unnest($categories) AS category, unnest($patterns) AS pattern, unnest($cat_ords)::INTEGER AS cat_ord;
