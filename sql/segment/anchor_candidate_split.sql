-- Candidates whose pass breaks another candidate's kernels fill: after segment_passes.sql ran on
-- anchor_candidates.sql's _anchors, a single-name candidate a is split by a single-name candidate b of
-- the same run when b's kernels run in every gap between a's passes and never inside one. A real break
-- between passes holds the end of the last layer, lm_head, sampling and the next embedding, not the
-- attention of a layer: a hybrid model's full-attention layer between three linear-attention ones
-- (Qwen3-Next), or a decode pass between two prefill passes, are layers and passes of one anchor set, so
-- a alone is no anchor (the pair a | b is, when it is a candidate).
-- Inputs: _anchors, _passes (run_id: the candidate index), TEMP _cand_names (candidate -> run, name).
-- Parameters: none.
-- Output: rows, one per split candidate:
--   cand INTEGER: the candidate split
--   by_cand INTEGER: a candidate whose kernels fill its breaks (the lowest index)
WITH singles AS (
    SELECT cand, any_value(run_id) AS src_run FROM _cand_names GROUP BY cand HAVING count(*) = 1
), spans AS (
    SELECT p.run_id AS cand, p.pass, p.first_start, p.last_end,
        lead(p.first_start) OVER (PARTITION BY p.run_id ORDER BY p.pass) AS next_start
    FROM _passes p SEMI JOIN singles s ON s.cand = p.run_id
), multi AS (
    SELECT cand FROM spans GROUP BY cand HAVING count(*) >= 2
), pairs AS (
    SELECT a.cand AS a, b.cand AS b FROM singles a JOIN singles b ON a.src_run = b.src_run AND a.cand <> b.cand
    SEMI JOIN multi m ON m.cand = a.cand
), hits AS (
    SELECT pr.a, pr.b,
        count(*) FILTER (WHERE k.start_ns BETWEEN s.first_start AND s.last_end) AS inside,
        count(DISTINCT s.pass) FILTER (WHERE s.next_start IS NOT NULL AND k.start_ns > s.last_end
                                         AND k.start_ns < s.next_start) AS breaks_hit
    FROM pairs pr
    JOIN _anchors k ON k.run_id = pr.b
    JOIN spans s ON s.cand = pr.a
    GROUP BY ALL
)
SELECT h.a AS cand, min(h.b) AS by_cand
FROM hits h JOIN (SELECT cand, count(*) - 1 AS breaks FROM spans GROUP BY cand) n ON n.cand = h.a
WHERE h.inside = 0 AND h.breaks_hit = n.breaks
GROUP BY h.a
ORDER BY h.a;
