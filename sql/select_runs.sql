-- Run selection (`--run NAME|GLOB`, `--tag KEY[=VALUE]`). Inputs: runs.
-- Parameters: $name (an exact run name, or NULL), $pattern (a DuckDB GLOB on the name: * ? [abc] [!abc],
--   case-sensitive; or NULL), $keys / $values VARCHAR[] (tag filters, all must match; a NULL value
--   matches any value of the key, i.e. the run has the key).
-- Output: run_id of every matching run, in store order.
SELECT run_id FROM runs r
WHERE ($name IS NULL OR r.name = $name) AND ($pattern IS NULL OR r.name GLOB $pattern)
  AND (SELECT count(*) FROM (SELECT unnest($keys::VARCHAR[]) AS k, unnest($values::VARCHAR[]) AS v) f
       WHERE map_contains(r.tags, f.k) AND (f.v IS NULL OR r.tags[f.k] = f.v)) = len($keys::VARCHAR[])
ORDER BY run_id;
