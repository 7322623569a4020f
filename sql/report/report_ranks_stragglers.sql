-- Report `ranks --stragglers`: the vote across passes. Per layer, every compared pass in which the
-- layer has a straggler (ranks_units.sql: the slowest rank, with a skew at or above the threshold) gives
-- that rank one vote; the row names the rank with the most votes (ties: the higher median skew of the
-- layers it won, then the lower rank). The last row (layer NULL, shown as `all`) counts the votes of
-- every (pass, layer), or of the whole runs of a job with no layers to find. The prologue does not vote. A layer where no rank was a straggler in any pass
-- has an empty rank and a count of 0.
-- Inputs: _rk_cmp, _rk_ranks, runs.
-- Parameters: none.
-- Output: rows, one per layer, then one for all layers:
--   layer BIGINT: the layer (in a pipeline job, the model layer); NULL: all layers
--   rank INTEGER: the rank that was the straggler most often
--   run VARCHAR: its run
--   slowest_count BIGINT: the (pass, layer) units in which it was the straggler
--   passes BIGINT: the passes compared
--   units BIGINT: the (pass, layer) units that voted (passes for a layer; passes x layers for all)
--   share DECIMAL(12,3): slowest_count / units
--   median_skew DECIMAL(12,3): the lower median of its skews in the units it won
--   stragglers BIGINT: the units with any straggler (the votes cast)
WITH units AS (
    -- a pipeline stage's layers vote as the model layers they are (ranks_units.sql compared them per stage); a
    -- job with no layers to find votes with its whole runs (lk -3), in the row of all
    SELECT pass, model_layer AS layer, lk, slowest_rank, skew, straggler FROM _rk_cmp WHERE layer IS NOT NULL OR lk = -3
), scopes AS (
    SELECT layer, pass, slowest_rank, skew, straggler FROM units WHERE lk >= 0
    UNION ALL
    SELECT NULL AS layer, pass, slowest_rank, skew, straggler FROM units
), votes AS (
    SELECT layer, slowest_rank AS rank, count(*) AS slowest_count,
        list_sort(list(skew))[(count(*) + 1) // 2] AS median_skew
    FROM scopes WHERE straggler
    GROUP BY layer, slowest_rank
), totals AS (
    SELECT layer, count(DISTINCT pass) AS passes, count(*) AS units, count(*) FILTER (WHERE straggler) AS stragglers
    FROM scopes GROUP BY layer
), winners AS (
    SELECT layer, first(rank ORDER BY slowest_count DESC, median_skew DESC, rank) AS rank,
        max(slowest_count) AS slowest_count
    FROM votes GROUP BY layer
)
SELECT t.layer, w.rank, r.name AS run, coalesce(w.slowest_count, 0) AS slowest_count, t.passes, t.units,
    ratio3(coalesce(w.slowest_count, 0), t.units) AS share, v.median_skew, t.stragglers
FROM totals t
LEFT JOIN winners w ON w.layer IS NOT DISTINCT FROM t.layer
LEFT JOIN votes v ON v.layer IS NOT DISTINCT FROM t.layer AND v.rank = w.rank
LEFT JOIN _rk_ranks k ON k.rank = w.rank
LEFT JOIN runs r ON r.run_id = k.run_id
ORDER BY t.layer NULLS LAST;
