-- How steady each candidate anchor set is, after segment_passes.sql ran on anchor_candidates.sql's _anchors.
-- Inputs: _passes, _anchor_pass, _pass_split (run_id = candidate index).
-- Parameters: none.
-- Output: rows, one per candidate, in candidate order:
--   cand INTEGER: the candidate index
--   occurrences HUGEINT: its anchors
--   passes BIGINT: its passes
--   per_pass BIGINT: the expected count: --layers x blocks, else the most common count
--   steady BIGINT: passes with exactly per_pass anchors
--   tight BOOLEAN: the gaps between consecutive anchors inside a pass are alike (10th percentile >= a
--     quarter of the 90th) in most passes, i.e. one anchor per layer rather than two kernels side by side
--     in each layer (a split-KV kernel and its combine step: gaps alternate)
--   gap_breaks BIGINT: its pass breaks found from gaps alone (_pass_split.breaks), not marked by the trace
--   edge_partial BIGINT: its first and last passes that are partial (a capture cut mid-pass), when it has
--     more than one pass
WITH per_pass AS (
    -- within each pass: a prefill's layer gaps and a decode's differ by orders of magnitude, and both are
    -- steady within their own pass
    SELECT run_id, pass, quantile_disc(gap_ns, 0.1) * 4 >= quantile_disc(gap_ns, 0.9) AS tight
    FROM _anchor_pass WHERE k > 0 GROUP BY run_id, pass
), gaps AS (
    -- tight in most passes that have gaps (ties: tight)
    SELECT run_id, 2 * count(*) FILTER (WHERE tight) >= count(*) AS tight FROM per_pass GROUP BY run_id
)
SELECT p.run_id AS cand, sum(p.anchors) AS occurrences, count(*) AS passes, any_value(p.expected) AS per_pass,
    count(*) FILTER (WHERE NOT p.partial) AS steady, coalesce(any_value(g.tight), false) AS tight,
    coalesce(any_value(x.breaks), 0) AS gap_breaks,
    CASE WHEN count(*) > 1 THEN count(*) FILTER (WHERE p.partial AND (p.pass = 0 OR p.pass = p.last_pass)) ELSE 0 END
        AS edge_partial
FROM (SELECT *, max(pass) OVER (PARTITION BY run_id) AS last_pass FROM _passes) p LEFT JOIN gaps g USING (run_id) LEFT JOIN _pass_split x USING (run_id)
GROUP BY p.run_id
ORDER BY p.run_id;
