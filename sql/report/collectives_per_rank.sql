-- Report `collectives --per-rank`: one row per collective instance and member rank, in aligned time: when the
-- rank arrived, how long its op ran, and its wait (its start to the latest member's start: the time it spent
-- in the collective before the last rank came), beside the Ascend profiler's own figures for that rank. An
-- instance with a member off the reference clock (collectives_report.sql) has no wait, skew or transfer,
-- nor one whose earliest end comes before its latest start.
-- Inputs: _coll_aligned (align_apply.sql), runs.
-- Parameters:
--   $on_clock INTEGER[]: the runs on the reference clock (aligned, or all with --no-align)
-- Output: rows, one per instance and rank, in order of the instance's first start, then rank:
--   op VARCHAR: the collective
--   group VARCHAR: the process group
--   seq BIGINT: 0-based order of the instance within its group
--   ranks BIGINT: runs that have this instance
--   rank INTEGER: this member's rank
--   run VARCHAR: its run
--   start_us DECIMAL(23,3): its aligned start, from the report's first collective
--   dur_us DECIMAL(23,3): its op's duration
--   wait_us DECIMAL(23,3): latest member's start - its start
--   arrival_skew_us DECIMAL(23,3): the instance's latest start - earliest start
--   transfer_us DECIMAL(23,3): the instance's earliest end - latest start (never negative: NULL then)
--   offset_us DECIMAL(23,3): what alignment added to this run's times
--   mismatch VARCHAR: 'op or size differs' when members disagree (no wait, skew or transfer then), else NULL
--   prof_elapse_us DECIMAL(23,3): the Ascend profiler's Elapse Time of this rank's op
--   prof_wait_us DECIMAL(23,3): its Wait Time
--   prof_transit_us DECIMAL(23,3): its Transit Time
--   prof_sync_us DECIMAL(23,3): its Synchronization Time
--   prof_idle_us DECIMAL(23,3): its Idle Time
--   prof_bytes BIGINT: the bytes the profiler counts this rank's op moving (communication.json's transit size,
--     SDMA + RDMA: collectives_ops.sql); the instance's bytes in report collectives are the largest of these
WITH a AS (
    SELECT *, count(DISTINCT run_id) OVER i AS ranks, min(a_start) OVER i AS first_start,
        max(a_start) OVER i AS last_start, min(a_end) OVER i AS first_end,
        bool_and(consistent) OVER i AND (count(DISTINCT run_id) OVER i = 1
            OR bool_and(list_contains($on_clock, run_id)) OVER i) AS ok
    FROM _coll_aligned
    WINDOW i AS (PARTITION BY grp, mkey)
)
SELECT a.op, a.grp AS "group", dense_rank() OVER (PARTITION BY a.grp ORDER BY a.mkey) - 1 AS seq, a.ranks, a.rank,
    r.name AS run, us(a.a_start - min(a.first_start) OVER ()) AS start_us, us(a.end_ns - a.start_ns) AS dur_us,
    CASE WHEN a.ok THEN us(a.last_start - a.a_start) END AS wait_us,
    CASE WHEN a.ok THEN us(a.last_start - a.first_start) END AS arrival_skew_us,
    CASE WHEN a.ok AND a.first_end >= a.last_start THEN us(a.first_end - a.last_start) END AS transfer_us,
    us(a.offset_ns) AS offset_us, CASE WHEN NOT a.ok THEN 'op or size differs' END AS mismatch,
    us(a.prof_elapse_ns) AS prof_elapse_us, us(a.prof_wait_ns) AS prof_wait_us, us(a.prof_transit_ns) AS prof_transit_us,
    us(a.prof_sync_ns) AS prof_sync_us, us(a.prof_idle_ns) AS prof_idle_us, a.prof_bytes
FROM a JOIN runs r USING (run_id)
ORDER BY a.first_start, a.grp, a.mkey, a.rank NULLS LAST, a.run_id;
