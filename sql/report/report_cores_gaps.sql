-- Report `cores --top-gaps N`: the N longest idle intervals of each core class, with their time range
-- (µs from the run's first task) and how much of each was exposed (every core of the class idle).
-- Inputs: _core_idle, _class_busy, _win (report_cores.sql), tracks, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $top INTEGER: N
-- Output: rows, N at most per (run, core class):
--   run VARCHAR: the run's name
--   core_class VARCHAR: the core class
--   core VARCHAR: the core's thread name (else pid:tid)
--   rank BIGINT: from 1, longest first
--   start_us DECIMAL(23,3): from the run's first task
--   end_us DECIMAL(23,3): from the run's first task
--   gap_us DECIMAL(23,3): its length
--   exposed_us DECIMAL(38,3): the part of it when every core of the class was idle
WITH class_idle AS (   -- the window minus the union of the class's busy intervals
    SELECT c.run_id, c.cls, coalesce(lag(c.be) OVER (PARTITION BY c.run_id, c.cls ORDER BY c.bs), w.lo) AS gs, c.bs AS ge
    FROM _class_busy c JOIN _win w USING (run_id)
    UNION ALL
    SELECT c.run_id, c.cls, max(c.be), any_value(w.hi) FROM _class_busy c JOIN _win w USING (run_id) GROUP BY c.run_id, c.cls
), ranked AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, cls ORDER BY ie - is_ DESC, is_, TRY_CAST(tid AS BIGINT) NULLS LAST, tid) AS rank FROM _core_idle
), top AS (
    SELECT * FROM ranked WHERE rank <= $top
), exposed AS (
    SELECT t.run_id, t.cls, t.pid, t.tid, t.is_, sum(greatest(0, least(t.ie, ci.ge) - greatest(t.is_, ci.gs))) AS ns
    FROM top t JOIN class_idle ci ON ci.run_id = t.run_id AND ci.cls = t.cls AND ci.ge > t.is_ AND ci.gs < t.ie
    GROUP BY ALL
)
SELECT r.name AS run, t.cls AS core_class, coalesce(tr.thread_name, t.pid || ':' || t.tid) AS core, t.rank,
    us(t.is_ - w.first_ns) AS start_us, us(t.ie - w.first_ns) AS end_us, us(t.ie - t.is_) AS gap_us,
    us(coalesce(e.ns, 0)) AS exposed_us
FROM top t JOIN _win w USING (run_id) JOIN runs r USING (run_id)
LEFT JOIN exposed e USING (run_id, cls, pid, tid, is_)
LEFT JOIN tracks tr ON tr.run_id = t.run_id AND tr.pid = t.pid AND tr.tid = t.tid
ORDER BY list_position($run_ids, t.run_id), t.cls, t.rank;
