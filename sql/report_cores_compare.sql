-- Report `cores` over two runs: the on-core (busy) time of each core class side by side, with the ratio
-- of the second run's to the first's (the seeds/003 table: CCE ~548 µs vs generated ~1263 µs, 2.3x).
-- Inputs: _core_busy (report_cores.sql over both runs), runs. Parameters: $run_ids (exactly two).
-- Columns: core_class, run_a, tasks_a, busy_us_a, run_b, tasks_b, busy_us_b, ratio (b / a, 3 decimals).
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
