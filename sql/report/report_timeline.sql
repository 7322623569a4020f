-- Report `timeline`: time ranges of passes and layers, to find them in Perfetto. A pass row has an empty
-- layer and comes first.
-- start_s, end_s: seconds from the trace's first event (runs.trace_start_ns, host side included), the zero
--   of Perfetto's UI timeline (trace processor's trace_bounds.start_ts is the first event's timestamp); a
--   CSV run's first kernel. With $absolute: the store's absolute time instead.
-- ts_ns, end_ns: the file's own timestamps in ns, as Perfetto's trace processor stores them (slice.ts is
--   the JSON ts in µs x 1000; Kineto's baseTimeNanoseconds is not added), to paste into Perfetto SQL:
--   `select * from slice where ts between <ts_ns> and <end_ns>`.
-- Inputs: _assigned, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $layers INTEGER[]: the layers to show; empty: every layer
--   $absolute BOOLEAN: start_s and end_s in the store's absolute time
-- Output: rows, one per pass and one per (pass, layer):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   layer BIGINT: the layer; NULL: the pass's own row
--   start_s DECIMAL(29,9): first kernel start
--   end_s DECIMAL(29,9): last kernel end
--   dur_ms DECIMAL(26,6): end - start
--   ts_ns BIGINT: start in the file's own ns
--   end_ns BIGINT: end in the file's own ns
WITH spans AS (
    SELECT run_id, pass, NULL::BIGINT AS layer, min(start_ns) AS s, max(end_ns) AS e FROM _assigned GROUP BY ALL
    UNION ALL
    SELECT run_id, pass, layer, min(start_ns), max(end_ns) FROM _assigned
    WHERE layer IS NOT NULL AND (len($layers) = 0 OR list_contains($layers, layer)) GROUP BY ALL
)
SELECT r.name AS run, sp.pass, sp.layer,
    sec(sp.s - CASE WHEN $absolute THEN 0 ELSE coalesce(r.trace_start_ns, r.first_start_ns) END) AS start_s,
    sec(sp.e - CASE WHEN $absolute THEN 0 ELSE coalesce(r.trace_start_ns, r.first_start_ns) END) AS end_s,
    ms(sp.e - sp.s) AS dur_ms,
    sp.s - coalesce(r.time_base_ns, 0) AS ts_ns, sp.e - coalesce(r.time_base_ns, 0) AS end_ns
FROM spans sp JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, sp.run_id), sp.pass, sp.layer NULLS FIRST;
