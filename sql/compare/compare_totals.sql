-- Totals for the notes of `report compare`: each run's device time over the compared passes (those every
-- run has; the sum of the run's rows there, for --pass mean the sum of the means), over all of them and
-- per pass, with the ratio to run $ref.
-- Inputs: _cmp (compare_align.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $ref INTEGER: the run_id the ratios are against
-- Output: rows, one per run over every compared pass, then one per (run, pass):
--   run_id INTEGER: the run
--   pass VARCHAR: the pass; NULL: every compared pass
--   sum_us VARCHAR: its time, 3 decimals
--   ratio VARCHAR: to $ref, 3 decimals; NULL when $ref has no time there
WITH common AS (
    SELECT pass_ord FROM _cmp GROUP BY pass_ord HAVING count(DISTINCT run_id) = len($run_ids)
), t AS (
    SELECT run_id, pass, pass_ord, GROUPING(pass, pass_ord) AS overall, sum(ns) AS ns
    FROM _cmp JOIN common USING (pass_ord)
    GROUP BY GROUPING SETS ((run_id), (run_id, pass, pass_ord))
)
SELECT t.run_id, t.pass, us(t.ns)::VARCHAR AS sum_us, ratio3(t.ns, r.ns)::VARCHAR AS ratio
FROM t LEFT JOIN t r ON r.run_id = $ref AND r.overall = t.overall AND r.pass_ord IS NOT DISTINCT FROM t.pass_ord
ORDER BY t.overall DESC, t.pass_ord, list_position($run_ids, t.run_id);
