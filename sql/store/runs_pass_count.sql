-- The passes one run's segmentation found (`tracedb runs --passes`).
-- Inputs: TEMP _passes.
-- Parameters: none.
-- Output: rows, one:
--   passes BIGINT: the rows of _passes
SELECT count(*) AS passes FROM _passes;
