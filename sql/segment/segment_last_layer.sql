-- Strict-window check: a pass's last layer ends at its anchor's end, so its work after the anchor (the
-- last MLP, lm_head) is outside the window. Flags passes whose last layer holds fewer than half the
-- kernels of the pass's median layer.
-- Inputs: _assigned (the selected passes).
-- Parameters: none.
-- Output: rows, one per flagged pass, in (run_id, pass) order:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layer BIGINT: its last layer
--   kernels BIGINT: kernels of that layer
--   median_kernels DOUBLE: the median kernel count of the pass's other layers
WITH per_layer AS (
    SELECT run_id, pass, layer, count(*) AS n FROM _assigned WHERE layer IS NOT NULL GROUP BY ALL
), last AS (
    SELECT run_id, pass, max(layer) AS layer FROM per_layer GROUP BY ALL
), med AS (
    SELECT p.run_id, p.pass, median(p.n) AS median_kernels
    FROM per_layer p JOIN last l USING (run_id, pass) WHERE p.layer < l.layer GROUP BY ALL
)
SELECT l.run_id, l.pass, l.layer, p.n AS kernels, m.median_kernels
FROM last l JOIN per_layer p USING (run_id, pass, layer) JOIN med m USING (run_id, pass)
WHERE p.n * 2 < m.median_kernels
ORDER BY l.run_id, l.pass;
