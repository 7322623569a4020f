-- Report `cores --per-core`, one row per run and core.
-- Inputs: _core_busy, _core_idle, _win (report_cores.sql), tracks, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, core):
--   run VARCHAR: the run's name
--   core_class VARCHAR: the core class
--   core VARCHAR: the core's thread name (else pid:tid)
--   tasks HUGEINT: matched tasks in the window
--   busy_us DECIMAL(38,3): union of its task intervals
--   idle_us DECIMAL(38,3): window - busy
--   utilisation_pct DECIMAL(6,2): busy / window
--   gaps BIGINT: idle intervals
--   gap_p50_us DECIMAL(23,3): their median
--   gap_p95_us DECIMAL(23,3): their 95th percentile
--   gap_max_us DECIMAL(23,3): the longest
WITH per_core AS (
    SELECT run_id, cls, pid, tid, sum(tasks) AS tasks, sum(be - bs) AS busy FROM _core_busy GROUP BY ALL
), gaps AS (
    SELECT run_id, cls, pid, tid, count(*) AS n, quantile_disc(ie - is_, 0.5) AS p50,
        quantile_disc(ie - is_, 0.95) AS p95, max(ie - is_) AS mx
    FROM _core_idle GROUP BY ALL
)
SELECT r.name AS run, p.cls AS core_class, coalesce(t.thread_name, p.pid || ':' || p.tid) AS core, p.tasks,
    us(p.busy) AS busy_us, us((w.hi - w.lo) - p.busy) AS idle_us,
    round(100.0 * p.busy / nullif(w.hi - w.lo, 0), 2)::DECIMAL(6, 2) AS utilisation_pct,
    coalesce(g.n, 0) AS gaps, us(g.p50) AS gap_p50_us, us(g.p95) AS gap_p95_us, us(g.mx) AS gap_max_us
FROM per_core p JOIN _win w USING (run_id) JOIN runs r USING (run_id)
LEFT JOIN gaps g USING (run_id, cls, pid, tid)
LEFT JOIN tracks t ON t.run_id = p.run_id AND t.pid = p.pid AND t.tid = p.tid
ORDER BY list_position($run_ids, p.run_id), p.cls, TRY_CAST(p.tid AS BIGINT) NULLS LAST, p.tid, core;
