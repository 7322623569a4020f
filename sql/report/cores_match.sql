-- Does --match find any task of the runs? For a one-line error instead of an empty report.
-- Inputs: kernels.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $match VARCHAR: RE2 on the task name
-- Output: rows, the 5 most frequent task names (one row with NULL name when the runs have no task):
--   matched BIGINT: tasks whose name matches, the same on every row
--   name VARCHAR: a task name
--   n BIGINT: its tasks
WITH t AS (
    SELECT name FROM kernels WHERE run_id IN (SELECT unnest($run_ids)) AND kind = 'task'
), top AS (
    SELECT name, count(*) AS n FROM t GROUP BY name ORDER BY n DESC, name LIMIT 5
)
SELECT (SELECT count(*) FROM t WHERE regexp_matches(coalesce(name, ''), $match)) AS matched, top.name, top.n
FROM (SELECT 1) LEFT JOIN top ON true;
