-- Stage 2: group anchors into forward passes.
-- Inputs: _anchors. Parameters: $per_pass BIGINT (anchors per pass = layers x blocks per layer, NULL
--   when unknown); $gap_factor DOUBLE.
-- Count-based when $per_pass is known: pass = idx // per_pass (the last pass may be short).
-- Gap-based otherwise: gap_i = start(anchor_i) - end(anchor_i-1); a pass starts where
--   gap_i > gap_factor x median(gap) of the run (the median floored at 1 ns).
-- Output: TEMP _anchor_pass(run_id, seq, start_ns, end_ns, idx, pass, block) with block = index of the
--   anchor within its pass; TEMP _passes(run_id, pass, anchors, first_start, last_end, expected,
--   partial): expected = per_pass, or in gap mode the most common anchor count of the run's passes
--   (ties: the larger); partial = anchors <> expected. Partial passes are kept, never merged or dropped.
CREATE OR REPLACE TEMP TABLE _anchor_pass AS
WITH g AS (
    SELECT *, start_ns - lag(end_ns) OVER (PARTITION BY run_id ORDER BY idx) AS gap_ns FROM _anchors
), med AS (
    SELECT run_id, median(gap_ns) AS med FROM g GROUP BY run_id
), marked AS (
    SELECT g.*,
        CASE WHEN $per_pass IS NOT NULL THEN idx % $per_pass = 0
             ELSE gap_ns IS NULL OR gap_ns > $gap_factor * greatest(coalesce(m.med, 0), 1) END AS starts_pass
    FROM g JOIN med m USING (run_id)
), numbered AS (
    SELECT *, sum(starts_pass::INTEGER) OVER (PARTITION BY run_id ORDER BY idx) - 1 AS pass FROM marked
)
SELECT run_id, seq, start_ns, end_ns, idx, pass,
    idx - min(idx) OVER (PARTITION BY run_id, pass) AS block
FROM numbered;
CREATE OR REPLACE TEMP TABLE _passes AS
WITH p AS (
    SELECT run_id, pass, count(*) AS anchors, min(start_ns) AS first_start, max(end_ns) AS last_end
    FROM _anchor_pass GROUP BY ALL
), freq AS (
    SELECT run_id, anchors, count(*) AS n FROM p GROUP BY ALL
), expected AS (
    SELECT run_id, coalesce($per_pass, arg_max(anchors, n * 1000000000 + anchors)) AS expected
    FROM freq GROUP BY run_id
)
SELECT p.*, e.expected, p.anchors <> e.expected AS partial
FROM p JOIN expected e USING (run_id);
