-- Where the compared runs differ in shape, for the notes of `report compare`: the number of passes
-- (--pass all over runs with different pass counts), and, in each pass every run has, the number of
-- layers (models of different depth, or a trace that starts mid-pass). The prologue is not a layer.
-- Inputs: _cmp (compare_align.sql), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in the order of the text
-- Output: rows, only where the runs differ, the pass counts first:
--   pass VARCHAR: the pass; NULL: the pass counts
--   counts VARCHAR: "a 4, b 1" (passes); "a 10 layers, b 11 layers"
WITH per AS (
    SELECT pass, pass_ord, run_id, count(DISTINCT layer) AS layers FROM _cmp GROUP BY ALL
), sel AS (
    SELECT unnest($run_ids) AS run_id, unnest(range(1, len($run_ids) + 1)) AS pos
), pass_counts AS (
    SELECT NULL::VARCHAR AS pass, -1 AS pass_ord, string_agg(r.name || ' ' || coalesce(c.n, 0), ', ' ORDER BY s.pos) AS counts,
        count(DISTINCT coalesce(c.n, 0)) > 1 AS differ
    FROM sel s JOIN runs r USING (run_id)
    LEFT JOIN (SELECT run_id, count(*) AS n FROM per GROUP BY run_id) c USING (run_id)
), layer_counts AS (
    SELECT p.pass, p.pass_ord, string_agg(r.name || ' ' || p.layers || ' layers', ', ' ORDER BY s.pos) AS counts,
        count(DISTINCT p.layers) > 1 AND count(*) = len($run_ids) AS differ
    FROM per p JOIN sel s USING (run_id) JOIN runs r USING (run_id)
    GROUP BY p.pass, p.pass_ord
)
SELECT pass, counts FROM (SELECT * FROM pass_counts UNION ALL SELECT * FROM layer_counts)
WHERE differ
ORDER BY pass_ord;
