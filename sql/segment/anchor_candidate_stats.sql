-- How steady each candidate anchor set is, after segment_passes.sql ran on anchor_candidates.sql's _anchors.
-- Inputs: _passes, _anchor_pass (run_id = candidate index).
-- Parameters: none.
-- Output: rows, one per candidate, in candidate order:
--   cand INTEGER: the candidate index
--   occurrences HUGEINT: its anchors
--   passes BIGINT: its passes
--   per_pass BIGINT: the expected count: --layers x blocks, else the most common count
--   steady BIGINT: passes with exactly per_pass anchors
--   tight BOOLEAN: the gaps between consecutive anchors inside passes are alike (10th percentile >= a
--     quarter of the 90th), i.e. one anchor per layer rather than two kernels side by side in each layer
--     (a split-KV kernel and its combine step: gaps alternate)
WITH gaps AS (
    SELECT run_id, quantile_disc(gap_ns, 0.1) AS p10, quantile_disc(gap_ns, 0.9) AS p90
    FROM _anchor_pass WHERE k > 0 GROUP BY run_id
)
SELECT p.run_id AS cand, sum(p.anchors) AS occurrences, count(*) AS passes, any_value(p.expected) AS per_pass,
    count(*) FILTER (WHERE NOT p.partial) AS steady, coalesce(any_value(g.p10) * 4 >= any_value(g.p90), false) AS tight
FROM _passes p LEFT JOIN gaps g USING (run_id)
GROUP BY p.run_id
ORDER BY p.run_id;
