-- Run selection (`--run NAME|GLOB`, `--tag KEY[=VALUE]`).
-- Inputs: runs.
-- Parameters:
--   $name VARCHAR: an exact run name, or NULL
--   $pattern VARCHAR: a DuckDB GLOB on the name: * ? [abc] [!abc], case-sensitive; or NULL
--   $keys VARCHAR[]: tag filters, all must match: their keys
--   $values VARCHAR[]: their values, in the order of $keys; a NULL value matches any value of the key,
--     i.e. the run has the key
-- Output: rows, one per matching run, in store order:
--   run_id INTEGER: the run
SELECT run_id FROM runs r
WHERE ($name IS NULL OR r.name = $name) AND ($pattern IS NULL OR r.name GLOB $pattern)
  AND (SELECT count(*) FROM (SELECT unnest($keys::VARCHAR[]) AS k, unnest($values::VARCHAR[]) AS v) f
       WHERE map_contains(r.tags, f.k) AND (f.v IS NULL OR r.tags[f.k] = f.v)) = len($keys::VARCHAR[])
ORDER BY run_id;
