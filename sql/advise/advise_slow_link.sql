-- Advise rule `slow-link`: instances of a collective whose transfer took far longer than the same collective's
-- usual one: a slow link (or a contended one) under some instances, where the ranks wait for the wire, not for
-- each other.
-- Trigger: a job's collective instances matched across its ranks (report collectives: collectives_match.sql,
-- clocks aligned by engine/jobs/align.py), each with its transfer: the earliest member's end minus the latest
-- member's start, the time every member was in it together, so a late rank's arrival is not counted (rule
-- slow-rank reads that). Instances of one collective are those of the same op, message size and member count,
-- over every process group (groups whose traffic crosses another link compare with each other); an instance of
-- unknown size (no c10d metadata, no communication.json) is not compared: a 300 us all-reduce of another size is
-- no slow one. With at least
-- $min_instances of them, an instance is slow when its transfer is at least $min_excess_pct % above their
-- median and $min_excess_us more. One finding per member rank whose slow instances' excess sums to at least
-- $min_pct % of its step time.
-- Threshold source: 50 % and 20 us by default: instances of one collective in a steady job differ by a few %
-- (the Megatron job's 8-byte all-reduces over 3 ranks: 15.9-17.2 us); half again as long is a different path
-- or a contended link, and 20 us keeps latency-bound collectives' jitter out. 5 instances give a median to
-- compare with (the same job's 8 MiB send/receive pairs: 434, 435 and 802 us, too few).
-- At stake: per rank, the transfer beyond the median over its slow instances: what the wire cost more than
-- usual. Part of it may be hidden under computing; rule exposed-comm says how much communication the step waited
-- for.
-- Limits: an instance whose members are not all selected, disagree on the op or size, or whose clocks could not
-- be aligned has no transfer and is not judged. A collective every instance of which crosses the slow link
-- looks like its own median: then compare the bandwidth with the link's (report collectives' busbw_gbps).
-- Inputs: _coll_aligned (align_apply.sql), _adv_runs (advise_runs.sql).
-- Parameters:
--   $on_clock INTEGER[]: the runs whose clocks are aligned (engine/jobs/align.py)
--   $min_instances BIGINT: the fewest instances of a collective to compare
--   $min_excess_pct DOUBLE: the least excess over the median transfer, %
--   $min_excess_us DOUBLE: the least excess over the median transfer, us
--   $min_pct DOUBLE: the least share of a rank's step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per rank at or above the threshold:
--   rule VARCHAR: slow-link
--   run_id INTEGER: the rank's run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the collective (op)
--   at_stake_ns BIGINT: the summed excess transfer of its slow instances
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the slowest instances against the median, and the report command
INSERT INTO _adv_findings BY NAME
WITH inst AS (
    -- the size as report collectives takes it: c10d's, else the largest the Ascend profiler counts a member moving
    SELECT grp, mkey, min(op) AS op, coalesce(min(nbytes), max(prof_bytes)) AS nbytes, count(DISTINCT run_id) AS members,
        min(a_end) - max(a_start) AS transfer_ns, list(DISTINCT run_id) AS runs,
        min(a_start) AS first_start
    FROM _coll_aligned
    GROUP BY grp, mkey
    HAVING bool_and(consistent) AND bool_and(list_contains($on_clock, run_id)) AND count(DISTINCT run_id) >= 2
       AND min(a_end) > max(a_start) AND coalesce(min(nbytes), max(prof_bytes)) IS NOT NULL
), keyed AS (
    SELECT *, median(transfer_ns) OVER (PARTITION BY op, nbytes, members) AS median_ns,
        count(*) OVER (PARTITION BY op, nbytes, members) AS instances,
        dense_rank() OVER (PARTITION BY grp ORDER BY mkey) - 1 AS seq
    FROM inst
), slow AS (
    SELECT *, transfer_ns - median_ns AS excess_ns FROM keyed
    WHERE instances >= $min_instances
      AND transfer_ns >= median_ns * (1 + $min_excess_pct / 100.0)
      AND transfer_ns - median_ns >= $min_excess_us * 1000
), members AS (
    SELECT s.*, unnest(s.runs) AS run_id FROM slow s
), per AS (
    SELECT run_id, count(*) AS n, sum(excess_ns)::BIGINT AS ns, arg_max(op, excess_ns) AS op,
        string_agg(op || coalesce(' ' || nbytes || ' B', '') || ' #' || seq || ' of group ' || grp || ': '
                   || CAST(us(transfer_ns::BIGINT) AS VARCHAR) || ' us against the median '
                   || CAST(us(median_ns::BIGINT) AS VARCHAR) || ' us of ' || instances, '; '
                   ORDER BY excess_ns DESC, first_start) FILTER (WHERE place <= 3) AS shown
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY excess_ns DESC, first_start) AS place
          FROM members)
    GROUP BY run_id
)
SELECT 'slow-link' AS rule, p.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer, p.op AS kernel,
    p.ns AS at_stake_ns, r.base_ns,
    p.n || ' collective ' || CASE WHEN p.n = 1 THEN 'instance' ELSE 'instances' END || ' transferred '
        || CAST(us(p.ns) AS VARCHAR) || ' us longer than the median instance of the same collective, with every '
        || 'member already in it' AS finding,
    'the slowest' || CASE WHEN p.n > 3 THEN ' 3' ELSE '' END || ': ' || p.shown
        || '; transfer_us and busbw_gbps per instance: tracedb report collectives '
        || replace(r.cmd, ' --run ' || adv_word(r.run), '')
        || coalesce(' --tag job=' || adv_word(r.job),
                    ' --run ' || adv_word(r.run)) AS evidence
FROM per p JOIN _adv_runs r USING (run_id)
WHERE 100.0 * p.ns >= $min_pct * r.base_ns;
