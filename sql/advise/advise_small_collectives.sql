-- Advise rule `small-collectives`: many collectives too small to use the links, each paying a collective's
-- fixed cost (launch, the members' handshake, the protocol's latency) for a few kilobytes.
-- Trigger: a run's communication ops of known message size (c10d's metadata, or the Ascend profiler's transit
-- size: _coll_ops of collectives_ops.sql) under $max_bytes number at least $min_per_step per step (per run
-- without steps) and take at least $min_pct % of its step time on the device.
-- Threshold source: 1 MiB, where NCCL's all-reduce stops being latency-bound on NVLink and InfiniBand
-- (nccl-tests' bus bandwidth reaches a tenth of its peak there; msprof-analyze's advisor counts RDMA packets
-- under 1 MB as small); 8 a step: a training step's few scalar all-reduces (loss, gradient norm, found-inf)
-- stay under it (the Megatron job's rank 0: 1 a step; HTA's NCCL sample: 2 broadcasts a step); 3 %, the
-- severity scale's first step.
-- At stake: the small ops' device time on the rank (their wait for the other members included): what
-- bucketing them into collectives of a few MiB saves, less the one collective that would remain.
-- Limits: an op of unknown size (no c10d metadata, no communication.json) is not counted, nor one of 0 bytes (a
-- barrier: it moves no data to bucket). Time hidden under
-- computing is counted too: rule exposed-comm says how much communication the step waited for.
-- Inputs: _coll_ops (collectives_ops.sql), _adv_runs (advise_runs.sql).
-- Parameters:
--   $max_bytes BIGINT: the largest message counted as small
--   $min_per_step DOUBLE: the fewest small ops a step (the run: its steps, at least 1)
--   $min_pct DOUBLE: the least share of the step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the thresholds:
--   rule VARCHAR: small-collectives
--   run_id INTEGER: the run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the op with the most small instances
--   at_stake_ns BIGINT: the small ops' device time
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: counts and sizes per op, and the report command
INSERT INTO _adv_findings BY NAME
WITH small AS (
    SELECT run_id, op, coalesce(nbytes, prof_bytes) AS nbytes, end_ns - start_ns AS ns FROM _coll_ops
    WHERE coalesce(nbytes, prof_bytes) > 0 AND coalesce(nbytes, prof_bytes) < $max_bytes AND end_ns > start_ns
), by_op AS (
    SELECT run_id, op, count(*) AS n, sum(ns)::BIGINT AS ns, median(nbytes)::BIGINT AS mid_bytes,
        median(ns)::BIGINT AS mid_ns
    FROM small GROUP BY run_id, op
), per AS (
    SELECT run_id, sum(n)::BIGINT AS n, sum(ns)::BIGINT AS ns, arg_max(op, n) AS op,
        string_agg(n || ' ' || op || ' (median ' || mid_bytes || ' B, ' || CAST(us(mid_ns) AS VARCHAR) || ' us)',
                   '; ' ORDER BY n DESC, op) AS shown
    FROM by_op GROUP BY run_id
)
SELECT 'small-collectives' AS rule, p.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer, p.op AS kernel,
    p.ns AS at_stake_ns, r.base_ns,
    p.n || CASE WHEN p.n = 1 THEN ' collective' ELSE ' collectives' END || ' under '
        || CAST(round($max_bytes / 1048576.0, 3) AS VARCHAR) || ' MiB ('
        || CAST(round(p.n / greatest(r.steps, 1), 1) AS VARCHAR) || ' a step) took '
        || CAST(us(p.ns) AS VARCHAR) || ' us on the device' AS finding,
    'small ops: ' || p.shown || '; each instance''s bytes and transfer: tracedb report collectives '
        || replace(r.cmd, ' --run ' || adv_word(r.run), '')
        || coalesce(' --tag job=' || adv_word(r.job),
                    ' --run ' || adv_word(r.run)) AS evidence
FROM per p JOIN _adv_runs r USING (run_id)
WHERE p.n >= $min_per_step * greatest(r.steps, 1) AND 100.0 * p.ns >= $min_pct * r.base_ns;
