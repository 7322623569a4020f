-- Report `cores`: on-core busy time, idle time and bubbles of per-core NPU traces (tasks: kind 'task').
-- The window runs from the first to the last task on any core of the run (all tasks, matched or not),
-- unless restricted. Busy time of a core is the union of its (clipped) task intervals, so overlapping
-- tasks count once: sort by start, keep the running max end of earlier tasks, start a new busy interval
-- where a task starts after it. Idle intervals are the window minus the busy ones.
-- exposed: the time in the window when every core of the class is idle at once (window minus the union
--   of the class's busy intervals); hidden: idle core-time while another core of the class works
--   (idle - cores x exposed).
-- The report query is report_cores_class.sql, report_cores_core.sql, report_cores_gaps.sql or
-- report_cores_compare.sql, over the tables below.
-- Inputs: trace_events (per-core tasks exist only in trace files).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $match VARCHAR: RE2 on the task name; NULL: every task
--   $from_ns BIGINT: window start relative to the run's first task; NULL: the run's first task
--   $to_ns BIGINT: window end relative to the run's first task; NULL: the run's last task end
-- Output: TEMP _tasks, one row per task of the runs (matched or not):
--   run_id INTEGER: the run
--   cls VARCHAR: its core class (core_type: AIC, AIV or a --core-rule class)
--   pid VARCHAR: its core's process, as the trace writes it
--   tid VARCHAR: its core's thread, as the trace writes it (a core is a (pid, tid): text, since swimlanes
--     may name threads 'core1000', which a number cast would turn into one NULL core)
--   s BIGINT: start
--   e BIGINT: end
--   name VARCHAR: the task name
-- Output: TEMP _win, one row per run:
--   run_id INTEGER: the run
--   first_ns BIGINT: its first task's start
--   lo BIGINT: window start
--   hi BIGINT: window end
-- Output: TEMP _core_busy, one row per busy interval of a core:
--   run_id INTEGER: the run
--   cls VARCHAR: the core class
--   pid VARCHAR: the core's process
--   tid VARCHAR: the core's thread
--   bs BIGINT: busy interval start
--   be BIGINT: busy interval end
--   tasks BIGINT: matched tasks in it
-- Output: TEMP _core_idle, one row per idle interval of a core with a busy interval:
--   run_id INTEGER: the run
--   cls VARCHAR: the core class
--   pid VARCHAR: the core's process
--   tid VARCHAR: the core's thread
--   is_ BIGINT: idle interval start
--   ie BIGINT: idle interval end
-- Output: TEMP _class_busy, one row per interval of the union of a class's busy intervals:
--   run_id INTEGER: the run
--   cls VARCHAR: the core class
--   bs BIGINT: start
--   be BIGINT: end
CREATE OR REPLACE TEMP TABLE _tasks AS
SELECT t.run_id, t.core_type AS cls, t.pid, t.tid, t.start_ns AS s, t.start_ns + t.dur_ns AS e, t.name
FROM trace_events t WHERE t.kind = 'task' AND t.run_id IN (SELECT unnest($run_ids));
CREATE OR REPLACE TEMP TABLE _win AS
SELECT run_id, min(s) AS first_ns,
    min(s) + coalesce($from_ns, 0) AS lo,
    CASE WHEN $to_ns IS NULL THEN max(e) ELSE min(s) + $to_ns END AS hi
FROM _tasks GROUP BY run_id;
CREATE OR REPLACE TEMP TABLE _core_busy AS
WITH clipped AS (
    SELECT t.run_id, t.cls, t.pid, t.tid, greatest(t.s, w.lo) AS s, least(t.e, w.hi) AS e
    FROM _tasks t JOIN _win w USING (run_id)
    WHERE t.e >= w.lo AND t.s <= w.hi AND ($match IS NULL OR regexp_matches(t.name, $match))
), ord AS (
    SELECT *, max(e) OVER (PARTITION BY run_id, cls, pid, tid ORDER BY s, e
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM clipped
), grp AS (
    SELECT *, sum(CASE WHEN prev_end IS NULL OR s > prev_end THEN 1 ELSE 0 END)
                  OVER (PARTITION BY run_id, cls, pid, tid ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS g
    FROM ord
)
SELECT run_id, cls, pid, tid, min(s) AS bs, max(e) AS be, count(*) AS tasks FROM grp GROUP BY run_id, cls, pid, tid, g;
-- idle intervals of each core: before its first busy interval, between, and after its last
CREATE OR REPLACE TEMP TABLE _core_idle AS
WITH b AS (
    SELECT b.*, w.lo, w.hi, lag(b.be) OVER (PARTITION BY b.run_id, b.cls, b.pid, b.tid ORDER BY b.bs) AS prev_be,
        lead(b.bs) OVER (PARTITION BY b.run_id, b.cls, b.pid, b.tid ORDER BY b.bs) AS next_bs
    FROM _core_busy b JOIN _win w USING (run_id)
)
SELECT run_id, cls, pid, tid, coalesce(prev_be, lo) AS is_, bs AS ie FROM b WHERE bs > coalesce(prev_be, lo)
UNION ALL
SELECT run_id, cls, pid, tid, be, hi FROM b WHERE next_bs IS NULL AND be < hi;
-- the class-wide union of busy intervals, for exposed stalls
CREATE OR REPLACE TEMP TABLE _class_busy AS
WITH ord AS (
    SELECT run_id, cls, bs, be, max(be) OVER (PARTITION BY run_id, cls ORDER BY bs, be
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM _core_busy
), grp AS (
    SELECT *, sum(CASE WHEN prev_end IS NULL OR bs > prev_end THEN 1 ELSE 0 END)
                  OVER (PARTITION BY run_id, cls ORDER BY bs, be ROWS UNBOUNDED PRECEDING) AS g
    FROM ord
)
SELECT run_id, cls, min(bs) AS bs, max(be) AS be FROM grp GROUP BY run_id, cls, g;
