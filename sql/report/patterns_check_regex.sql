-- Whether DuckDB's RE2 takes a pattern from the user (an anchor, a category rule, --match, --core-rule): the
-- query fails with DuckDB's reason when it does not, before any report uses the pattern.
-- Inputs: none.
-- Parameters:
--   $p VARCHAR: the pattern
-- Output: rows, one: whether the empty text matches (the value is not read; only an error counts).
SELECT regexp_matches('', $p);
