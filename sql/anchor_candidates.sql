-- Candidate anchors for a run with no anchor given: attention kernels (by the profile's categories)
-- grouped into passes by gaps, as segment_passes.sql would, with how steady their count per pass is.
-- Inputs: kernels, _cats (categories of the run's names). Parameters: $run_id, $gap_factor.
-- Output: name, occurrences, passes, per_pass (the most common count per pass; ties: the larger),
--   steady (passes with exactly per_pass), ordered best first.
WITH cand AS (
    SELECT DISTINCT name FROM _cats WHERE category = 'attention' AND name IS NOT NULL
), a AS (
    SELECT k.name, k.start_ns, k.start_ns + k.dur_ns AS end_ns,
        row_number() OVER (PARTITION BY k.name ORDER BY k.start_ns, k.seq) AS idx
    FROM kernels k JOIN cand USING (name) WHERE k.run_id = $run_id
), g AS (
    SELECT *, start_ns - lag(end_ns) OVER (PARTITION BY name ORDER BY idx) AS gap FROM a
), med AS (
    SELECT name, median(gap) AS med FROM g GROUP BY name
), p AS (
    SELECT g.name, sum(CASE WHEN gap IS NULL OR gap > $gap_factor * greatest(coalesce(m.med, 0), 1) THEN 1 ELSE 0 END)
        OVER (PARTITION BY g.name ORDER BY idx) AS pass
    FROM g JOIN med m USING (name)
), counts AS (
    SELECT name, pass, count(*) AS n FROM p GROUP BY ALL
), freq AS (
    SELECT name, n, count(*) AS k FROM counts GROUP BY ALL
), best AS (
    SELECT name, arg_max(n, k * 1000000000 + n) AS per_pass, sum(k) AS passes, sum(n * k) AS occurrences,
        max(k) AS steady
    FROM freq GROUP BY name
)
SELECT name, occurrences, passes, per_pass, steady FROM best
WHERE per_pass >= 2
ORDER BY steady * 1.0 / passes DESC, steady DESC, per_pass DESC, name;
