-- How the single-name anchor candidates of a run lie against each other's passes, after segment_passes.sql
-- ran on anchor_candidates.sql's _anchors: for each ordered pair (a, b) of single-name candidates of one
-- run, how many of b's kernels run inside a's passes (from a pass's first anchor to its last) and whether
-- b's kernels run in every gap between two of a's passes. A real break between passes holds the end of the
-- last layer, lm_head, sampling and the next embedding, not the attention of a layer:
-- * b never inside a's passes and in every gap between them: a hybrid model's full-attention layer between
--   linear-attention ones (Qwen3-Next), so a alone is no anchor (tracedb.engine.segmentation.anchors);
-- * a and b never inside each other's passes: a prefill kernel and a decode kernel, each anchoring the
--   passes of its own steps: together they are the anchor, and a change from one to the other is a pass
--   break.
-- Inputs: _anchors, _passes (run_id: the candidate index), TEMP _cand_names (candidate -> run, name).
-- Parameters: none.
-- Output: rows, one per ordered pair of single-name candidates of one run:
--   a INTEGER: a candidate
--   b INTEGER: another candidate of the same run
--   inside BIGINT: b's kernels that start inside one of a's passes
--   fills BOOLEAN: a has two passes or more, and b's kernels run in every gap between two of them
--   steps BIGINT: the marked steps (_anchors.step_ns) that hold kernels of both a and b: names of one kind of
--     step run in the same steps even where their passes are too short to hold each other (a hybrid model's
--     full-attention layer after its linear ones, one a step)
WITH singles AS (
    SELECT cand, any_value(run_id) AS src_run FROM _cand_names GROUP BY cand HAVING count(*) = 1
), spans AS (
    SELECT p.run_id AS cand, p.pass, p.first_start, p.last_end,
        lead(p.first_start) OVER (PARTITION BY p.run_id ORDER BY p.pass) AS next_start
    FROM _passes p SEMI JOIN singles s ON s.cand = p.run_id
), pairs AS (
    SELECT a.cand AS a, b.cand AS b FROM singles a JOIN singles b ON a.src_run = b.src_run AND a.cand <> b.cand
), hits AS (
    -- each of b's kernels meets a's latest pass to start before it (ASOF): inside it, or in the gap after it
    SELECT pr.a, pr.b,
        count(*) FILTER (WHERE k.start_ns <= s.last_end) AS inside,
        count(DISTINCT s.pass) FILTER (WHERE s.next_start IS NOT NULL AND k.start_ns > s.last_end) AS breaks_hit
    FROM pairs pr
    JOIN _anchors k ON k.run_id = pr.b
    ASOF JOIN spans s ON s.cand = pr.a AND k.start_ns >= s.first_start
    GROUP BY ALL
), marked AS (
    SELECT DISTINCT run_id AS cand, step_ns FROM _anchors
    WHERE step_ns IS NOT NULL AND run_id IN (SELECT cand FROM singles)
), shared AS (
    SELECT pr.a, pr.b, count(*) AS steps
    FROM pairs pr JOIN marked ma ON ma.cand = pr.a JOIN marked mb ON mb.cand = pr.b AND mb.step_ns = ma.step_ns
    GROUP BY ALL
)
SELECT pr.a, pr.b, coalesce(h.inside, 0) AS inside, coalesce(n.breaks > 0 AND h.breaks_hit = n.breaks, false) AS fills,
    coalesce(sh.steps, 0) AS steps
FROM pairs pr
LEFT JOIN hits h USING (a, b)
LEFT JOIN shared sh USING (a, b)
LEFT JOIN (SELECT cand, count(*) - 1 AS breaks FROM spans GROUP BY cand) n ON n.cand = pr.a
ORDER BY pr.a, pr.b;
