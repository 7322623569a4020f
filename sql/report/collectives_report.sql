-- Report `collectives`: one row per collective instance of a job, matched across the ranks of its group
-- (collectives_match.sql), in aligned time (align_apply.sql). arrival_skew is the latest member's start minus
-- the earliest's; transfer is the earliest end minus the latest start: the time all members were in the
-- collective together. Bandwidths follow nccl-tests' definitions
-- (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md): algbw = bytes / time, here over
-- transfer; busbw = algbw x 2(n-1)/n for allreduce, (n-1)/n for allgather, reducescatter and alltoall, 1 for
-- broadcast, reduce and point-to-point, n the group's size. bytes is c10d's message size; an Ascend op has none,
-- so its bytes are what the profiler's communication.json counts it moving (prof_bytes of collectives_ops.sql:
-- SDMA + RDMA transit size), the largest over the members, as the prof_ columns take theirs: the profiler need
-- not count the same transit on every member of one instance. An instance whose members disagree on op or size
-- gets no figures, and the disagreement in `mismatch`. Nor does an instance whose members' clocks are not
-- one (a member outside $on_clock: engine/jobs/align.py could not align it, or the alignment's residual is too
-- large), or whose earliest end comes before its latest start (no time all members were in it: not one
-- instance); `flag` says why. No negative duration is printed.
-- waiting is what the members spent in the collective before the last one came, summed over them.
-- Inputs: _coll_aligned (align_apply.sql).
-- Parameters:
--   $on_clock INTEGER[]: the runs on the reference clock (aligned, or all with --no-align)
--   $why_not VARCHAR: the flag of an instance with a member off that clock
-- Output: rows, one per instance, in order of its first start:
--   op VARCHAR: the collective (allreduce, allgather, ...; the first by name when members disagree)
--   group VARCHAR: the process group (c10d pg_name, HCCL group id, or 'stream <id>')
--   group_desc VARCHAR: its description (pg_desc, Ascend group name) when known
--   seq BIGINT: 0-based order of the instance within its group in the profiled window
--   c10d_seq BIGINT: c10d's own sequence number, when the trace has it
--   ranks BIGINT: runs (ranks) that have this instance
--   group_size BIGINT: ranks in the group (c10d Group size, else the run's group record)
--   bytes BIGINT: message size (the larger of c10d's in and out nelems x dtype size); Ascend: the profiler's transit
--     size (SDMA + RDMA), the largest over the members; NULL unknown
--   start_us DECIMAL(23,3): earliest aligned start, from the report's first collective
--   arrival_skew_us DECIMAL(23,3): latest start - earliest start
--   transfer_us DECIMAL(23,3): earliest end - latest start
--   waiting_us DECIMAL(23,3): the members' time in it before the last arrival, summed (latest start - each
--     member's start)
--   last_rank INTEGER: the rank that arrived last (ties: the higher rank)
--   algbw_gbps DECIMAL(18,3): bytes / transfer, GB/s (1e9 bytes)
--   busbw_gbps DECIMAL(18,3): algbw x the op's factor
--   mismatch VARCHAR: what members disagree on; NULL when they agree
--   flag VARCHAR: why an instance whose members agree has no cross-rank figures; NULL when it has them
--   prof_elapse_us DECIMAL(23,3): the Ascend profiler's Elapse Time, the largest over the members
--   prof_wait_us DECIMAL(23,3): its Wait Time, the largest over the members
--   prof_transit_us DECIMAL(23,3): its Transit Time, the largest over the members
--   prof_sync_us DECIMAL(23,3): its Synchronization Time, the largest over the members
WITH inst AS (
    SELECT grp, mkey, any_value(grp_desc) AS grp_desc, min(op) AS op, max(op) AS op_max,
        count(DISTINCT run_id) AS ranks, max(group_size) AS group_size, min(nbytes) AS b_min, max(nbytes) AS b_max,
        max(c10d_seq) AS c10d_seq, bool_and(consistent) AS ok, count(*) AS rows_,
        min(a_start) AS first_start, max(a_start) AS last_start, min(a_end) AS first_end,
        arg_max(rank, (a_start, rank)) AS last_rank,
        max(prof_elapse_ns) AS pe, max(prof_wait_ns) AS pw, max(prof_transit_ns) AS pt, max(prof_sync_ns) AS ps,
        max(prof_bytes) AS pb,
        count(DISTINCT run_id) = 1 OR bool_and(list_contains($on_clock, run_id)) AS one_clock,
        -- HUGEINT: 8 members x an epoch start in ns (1.76e18) passes INT64
        count(*)::HUGEINT * max(a_start) - sum(a_start) AS waiting_ns
    FROM _coll_aligned
    GROUP BY grp, mkey
), flagged AS (
    SELECT *,
        CASE WHEN NOT one_clock THEN $why_not
             WHEN ok AND first_end < last_start THEN 'members end before the last one starts: not one instance' END AS flag
    FROM inst
), figs AS (
    SELECT *, ok AND flag IS NULL AS sound,
        -- bytes per ns are GB/s (1e9 bytes)
        CASE WHEN ok AND flag IS NULL AND first_end > last_start THEN nbytes / (first_end - last_start) END AS algbw,
        coalesce(group_size, ranks) AS n
    FROM (SELECT *, coalesce(b_min, pb) AS nbytes FROM flagged)
)
SELECT op, grp AS "group", grp_desc AS group_desc,
    dense_rank() OVER (PARTITION BY grp ORDER BY mkey) - 1 AS seq, c10d_seq, ranks, group_size,
    CASE WHEN ok THEN nbytes END AS bytes,
    us(first_start - min(first_start) OVER ()) AS start_us,
    CASE WHEN sound THEN us(last_start - first_start) END AS arrival_skew_us,
    CASE WHEN sound THEN us(first_end - last_start) END AS transfer_us,
    CASE WHEN sound THEN us(waiting_ns::BIGINT) END AS waiting_us,
    CASE WHEN sound THEN last_rank END AS last_rank,
    round(algbw, 3)::DECIMAL(18, 3) AS algbw_gbps,
    round(algbw * CASE WHEN op = 'allreduce' THEN 2.0 * (n - 1) / n
                       WHEN op IN ('allgather', 'reducescatter', 'alltoall') THEN (n - 1)::DOUBLE / n
                       WHEN op IN ('broadcast', 'reduce', 'sendrecv', 'send', 'recv', 'batchsendrecv') THEN 1.0 END,
          3)::DECIMAL(18, 3) AS busbw_gbps,
    CASE WHEN op <> op_max THEN 'op: ' || op || ' vs ' || op_max
         WHEN b_min <> b_max THEN 'bytes: ' || b_min || ' vs ' || b_max
         WHEN rows_ <> ranks THEN 'a rank has the instance twice' END AS mismatch, flag,
    us(pe) AS prof_elapse_us, us(pw) AS prof_wait_us, us(pt) AS prof_transit_us, us(ps) AS prof_sync_us
FROM figs
ORDER BY first_start, grp, mkey;
