-- Report `timeline`: time ranges of passes and layers in seconds from the run's first kernel (or
-- absolute with $absolute), to navigate in Perfetto. A pass row has an empty layer and comes first.
-- Inputs: _assigned, runs. Parameters: $run_ids, $layers INTEGER[] (empty: every layer), $absolute.
-- Columns: run, pass, layer, start_s, end_s, dur_ms.
WITH spans AS (
    SELECT run_id, pass, NULL::BIGINT AS layer, min(start_ns) AS s, max(end_ns) AS e FROM _assigned GROUP BY ALL
    UNION ALL
    SELECT run_id, pass, layer, min(start_ns), max(end_ns) FROM _assigned
    WHERE layer IS NOT NULL AND (len($layers) = 0 OR list_contains($layers, layer)) GROUP BY ALL
)
SELECT r.name AS run, sp.pass, sp.layer,
    sec(sp.s - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS start_s,
    sec(sp.e - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS end_s,
    ms(sp.e - sp.s) AS dur_ms
FROM spans sp JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, sp.run_id), sp.pass, sp.layer NULLS FIRST;
