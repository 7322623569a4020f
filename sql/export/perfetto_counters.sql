-- Export `perfetto`: the counter events (ph C) of the annotation process, a step per layer, prologue and
-- epilogue:
-- one counter per category with time in the selected passes (its time in the unit) and `comm overlap` (the
-- unit's communication overlapped by computing), each back to 0 at its pass's end. A value equal to the
-- counter's previous one is left out: the step is the same without it. Perfetto names each track after the
-- event and its arg: `attention us`.
-- Inputs: _pf_units (perfetto_units.sql).
-- Parameters:
--   $categories VARCHAR[]: the profile's categories, in _rules.cat_ord order
--   $pid BIGINT: the annotation process
--   $tid BIGINT: its counters thread
--   $base_ns BIGINT: subtracted from the times (the run's time_base_ns, 0 for CSV runs)
-- Output: rows, one per counter change, in time order:
--   at_ns BIGINT: when, in the store's ns
--   event VARCHAR: the counter event, JSON text
WITH used AS (
    SELECT cat_ord FROM (SELECT unnest(map_keys(cat_ns)) AS cat_ord, unnest(map_values(cat_ns)) AS ns
                         FROM _pf_units WHERE unit = 'pass')
    GROUP BY cat_ord HAVING sum(ns) > 0
), steps AS (
    SELECT u.start_ns AS at_ns, 0 AS after_end, c.cat_ord, coalesce(u.cat_ns[c.cat_ord], 0) AS ns
    FROM _pf_units u CROSS JOIN used c WHERE u.unit <> 'pass'
    UNION ALL
    SELECT u.start_ns, 0, -1, u.overlap_ns FROM _pf_units u WHERE u.unit <> 'pass'
    UNION ALL
    SELECT u.end_ns, 1, c.cat_ord, 0 FROM _pf_units u CROSS JOIN (SELECT cat_ord FROM used UNION ALL SELECT -1) c
    WHERE u.unit = 'pass'
), changes AS (
    SELECT *, lag(ns) OVER (PARTITION BY cat_ord ORDER BY at_ns, after_end) AS prev FROM steps
)
SELECT at_ns,
    '{"ph":"C","cat":"tracedb","name":'
    || to_json(CASE WHEN cat_ord = -1 THEN 'comm overlap' ELSE $categories[cat_ord + 1] END)::VARCHAR
    || ',"pid":' || $pid || ',"tid":' || $tid || ',"ts":' || us(at_ns - $base_ns)::VARCHAR
    || ',"args":{"us":' || us(ns)::VARCHAR || '}}' AS event
FROM changes WHERE prev IS DISTINCT FROM ns
ORDER BY at_ns, after_end, cat_ord;
