-- Report `cores` over two runs: the on-core (busy) time of each core class side by side, with the ratio
-- of the second run's to the first's (e.g. a CCE kernel at ~548 µs vs a generated one at ~1263 µs: 2.3x).
-- Inputs: _core_busy (report_cores.sql over both runs), runs.
-- Parameters:
--   $run_ids INTEGER[]: exactly two runs, a then b
-- Output: rows, one per core class:
--   core_class VARCHAR: the core class
--   run_a VARCHAR: run a's name
--   tasks_a HUGEINT: its tasks
--   busy_us_a DECIMAL(38,3): its busy time
--   run_b VARCHAR: run b's name
--   tasks_b HUGEINT: its tasks
--   busy_us_b DECIMAL(38,3): its busy time
--   ratio DECIMAL(12,3): b / a, 3 decimals
WITH per AS (
    SELECT run_id, cls, sum(tasks) AS tasks, sum(be - bs) AS busy FROM _core_busy GROUP BY ALL
), a AS (SELECT * FROM per WHERE run_id = $run_ids[1]),
   b AS (SELECT * FROM per WHERE run_id = $run_ids[2])
SELECT coalesce(a.cls, b.cls) AS core_class,
    (SELECT name FROM runs WHERE run_id = $run_ids[1]) AS run_a, coalesce(a.tasks, 0) AS tasks_a,
    us(coalesce(a.busy, 0)) AS busy_us_a,
    (SELECT name FROM runs WHERE run_id = $run_ids[2]) AS run_b, coalesce(b.tasks, 0) AS tasks_b,
    us(coalesce(b.busy, 0)) AS busy_us_b,
    round(b.busy::DOUBLE / nullif(a.busy, 0), 3)::DECIMAL(12, 3) AS ratio
FROM a FULL OUTER JOIN b USING (cls)
ORDER BY core_class;
