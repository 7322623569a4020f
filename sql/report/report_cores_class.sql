-- Report `cores`, one row per run and core class.
-- Inputs: _core_busy, _core_idle, _class_busy, _win (report_cores.sql), tracks, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, core class):
--   run VARCHAR: the run's name
--   core_class VARCHAR: the core class
--   cores BIGINT: cores of the class with a task in the window
--   idle_cores BIGINT: cores of the class named in the trace's metadata without a task
--   tasks HUGEINT: matched tasks in the window
--   window_us DECIMAL(23,3): the window
--   busy_us DECIMAL(38,3): union of each core's task intervals (overlapping tasks count once), summed over cores
--   idle_us DECIMAL(38,3): cores × window − busy
--   utilisation_pct DECIMAL(6,2): busy / (cores × window)
--   gaps BIGINT: idle intervals of the class's cores in the window
--   gap_p50_us DECIMAL(23,3): their median
--   gap_p95_us DECIMAL(23,3): their 95th percentile
--   gap_max_us DECIMAL(23,3): the longest
--   exposed_us DECIMAL(38,3): time when every core of the class is idle: the window minus the union of the class's
--     busy intervals
--   hidden_us DECIMAL(38,3): idle time while another core of the class works: idle − cores × exposed
WITH per_class AS (
    SELECT run_id, cls, count(DISTINCT (pid, tid)) AS cores, sum(tasks) AS tasks, sum(be - bs) AS busy
    FROM _core_busy GROUP BY ALL
), gaps AS (
    SELECT run_id, cls, count(*) AS n, quantile_disc(ie - is_, 0.5) AS p50, quantile_disc(ie - is_, 0.95) AS p95,
        max(ie - is_) AS mx
    FROM _core_idle GROUP BY ALL
), union_busy AS (
    SELECT run_id, cls, sum(be - bs) AS ns FROM _class_busy GROUP BY ALL
), known AS (   -- cores named in the trace's metadata (classified at ingest), with or without tasks
    SELECT run_id, core_class AS cls, count(*) AS n
    FROM tracks WHERE run_id IN (SELECT unnest($run_ids)) AND core_class IS NOT NULL
    GROUP BY ALL
)
SELECT r.name AS run, p.cls AS core_class, p.cores, greatest(coalesce(k.n, 0) - p.cores, 0) AS idle_cores, p.tasks,
    us(w.hi - w.lo) AS window_us, us(p.busy) AS busy_us, us(p.cores * (w.hi - w.lo) - p.busy) AS idle_us,
    round(100.0 * p.busy / nullif(p.cores * (w.hi - w.lo), 0), 2)::DECIMAL(6, 2) AS utilisation_pct,
    coalesce(g.n, 0) AS gaps, us(g.p50) AS gap_p50_us, us(g.p95) AS gap_p95_us, us(g.mx) AS gap_max_us,
    us((w.hi - w.lo) - u.ns) AS exposed_us,
    us(p.cores * (w.hi - w.lo) - p.busy - p.cores * ((w.hi - w.lo) - u.ns)) AS hidden_us
FROM per_class p
JOIN _win w USING (run_id) JOIN runs r USING (run_id)
LEFT JOIN gaps g USING (run_id, cls) LEFT JOIN union_busy u USING (run_id, cls) LEFT JOIN known k USING (run_id, cls)
ORDER BY list_position($run_ids, p.run_id), p.cls;
