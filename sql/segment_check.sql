-- Diagnostics of count-based passes: do the pass boundaries fall on the large anchor gaps?
-- Inputs: _anchor_pass (count-based passes). Parameters: $gap_factor.
-- Output: run_id, gap_starts (anchors after a gap > gap_factor x median gap), misplaced (such anchors
--   that do not start a counted pass). A trace that begins mid-pass, or a wrong layer count, shows up
--   as misplaced > 0.
WITH g AS (
    SELECT *, start_ns - lag(end_ns) OVER (PARTITION BY run_id ORDER BY idx) AS gap_ns FROM _anchor_pass
), med AS (
    SELECT run_id, median(gap_ns) AS med FROM g GROUP BY run_id
), flagged AS (
    SELECT g.run_id, g.block, g.gap_ns > $gap_factor * greatest(coalesce(m.med, 0), 1) AS big
    FROM g JOIN med m USING (run_id) WHERE g.gap_ns IS NOT NULL
)
SELECT run_id, count(*) FILTER (WHERE big) AS gap_starts, count(*) FILTER (WHERE big AND block <> 0) AS misplaced
FROM flagged GROUP BY run_id ORDER BY run_id;
