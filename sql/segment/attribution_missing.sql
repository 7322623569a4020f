-- How many attributed kernels have no launching runtime call in the trace, of how many.
-- Inputs: _attr (attribute_modules.sql).
-- Parameters: none.
-- Output: rows, one row:
--   missing BIGINT: kernels of module '(no host launch)'
--   kernels BIGINT: every kernel of _attr
SELECT count(*) FILTER (WHERE module = '(no host launch)') AS missing, count(*) AS kernels FROM _attr;
