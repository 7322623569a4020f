-- What a folder ingest groups its runs into jobs by, once they are in the store (engine/loading/job_tags.py): each
-- run's rank and world size as the reports read them, its tags, and its capture window, first to last event. The
-- window counts the kernels, the run's first trace event (host calls start before the kernels they launch) and the
-- Ascend profiler's communication ops, which are the only events of a rank exported without kernels. Windows of
-- two hosts compare only on an epoch clock ($epoch_clocks: unix-epoch, unix-epoch-local): a trace-relative or
-- monotonic clock starts anywhere, so `epoch` says whether the window may be compared at all.
-- Inputs: runs, comm_ops.
-- Parameters:
--   $names VARCHAR[]: the run names
--   $epoch_clocks VARCHAR[]: the runs.clock_domain values that are epoch time
-- Output: rows, one per name that exists:
--   name VARCHAR: the run
--   run_id INTEGER: its id
--   rank INTEGER: runs.rank
--   world_size INTEGER: runs.world_size
--   job VARCHAR: its tag `job`, if any
--   capture BOOLEAN: tagged `capture_of` (a graph capture paired with its replay: no rank of a job)
--   epoch BOOLEAN: its clock is epoch time
--   first_ns BIGINT: its first event (NULL: none)
--   last_ns BIGINT: its last event's end (NULL: none)
WITH c AS (
    SELECT run_id, min(start_ns) AS c_first, max(start_ns + coalesce(elapse_ns, 0)) AS c_last
    FROM comm_ops
    WHERE run_id IN (SELECT run_id FROM runs WHERE name IN (SELECT unnest($names::VARCHAR[])))
      AND op_name <> 'Total Op Info' AND start_ns IS NOT NULL
    GROUP BY run_id
)
SELECT r.name, r.run_id, r.rank, r.world_size, r.tags['job'] AS job, r.tags['capture_of'] IS NOT NULL AS capture,
    coalesce(list_contains($epoch_clocks::VARCHAR[], r.clock_domain), FALSE) AS epoch,
    -- least / greatest skip NULLs: a run without kernels keeps its communication ops' window
    least(r.first_start_ns, r.trace_start_ns, c.c_first) AS first_ns,
    greatest(r.last_end_ns, c.c_last) AS last_ns
FROM runs r LEFT JOIN c USING (run_id)
WHERE r.name IN (SELECT unnest($names::VARCHAR[]))
ORDER BY r.run_id;
