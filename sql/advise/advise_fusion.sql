-- Advise rule `fusion`: sequences of memory-bound elementwise kernels that run back to back, the same sequence
-- again and again (once per layer): candidates for one fused kernel.
-- A kernel is memory-bound elementwise when its work is 'memory r+w' (kernel_work: PyTorch's elementwise ops
-- from their shapes; Ascend's vector-core ops such as Add, Mul, Cast). A sequence is a maximal run of such
-- kernels in time order on a device, with no other kernel between them, of at least 2 kernels; its signature is
-- its kernels' short names (kernel_names) in order.
-- Trigger: a signature seen at least $min_times times in the run, whose time at stake sums to at least $min_pct %
-- of the run's step time.
-- Threshold source: msprof-analyze's advisor flags fusible operator sequences seen at least 5 times that hold
-- at least 1 % of the time (mstt profiler/msprof_analyze/advisor, fusion ops); the same two numbers here.
-- At stake: per occurrence, the sequence's time beyond its longest kernel: a fused kernel over the same tensors
-- reads the inputs and writes the output about as its largest member does, where the sequence writes each
-- intermediate tensor and reads it back; summed over the repeated signatures.
-- Limits: without shapes (no record_shapes; kernels whose op tracedb has no work formula for) kernels have no
-- work and break sequences; two kernels that share no tensor are fused here all the same (the trace records no
-- tensor identities); a sequence already fused by the compiler is one kernel, never a candidate.
-- Inputs: kernels, kernel_work, kernel_names, _adv_runs (advise_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $min_times BIGINT: the fewest occurrences of a signature
--   $min_pct DOUBLE: the least share of the run's step time, %
-- Output: TEMP _adv_fusion, one row per run and repeated signature:
--   run_id INTEGER: the run
--   signature VARCHAR: the kernels' short names in order, joined by ' > '
--   kernels BIGINT: its length
--   times BIGINT: its occurrences
--   total_ns BIGINT: their time
--   at_stake_ns BIGINT: their time beyond each occurrence's longest kernel
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: fusion
--   run_id INTEGER: the run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the first kernel (short name) of the sequence with the most at stake
--   at_stake_ns BIGINT: summed over the run's repeated signatures
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the sequences and the report command
CREATE OR REPLACE TEMP TABLE _adv_fusion AS
WITH k AS (
    SELECT k.run_id, coalesce(k.device_id, -1) AS device_id, k.seq, coalesce(kn.short_name, k.name) AS name,
        k.start_ns, k.dur_ns, coalesce(w.flops_source = 'memory r+w' AND w.bytes > 0, false) AS mem
    FROM kernels k
    LEFT JOIN kernel_work w ON w.run_id = k.run_id AND w.seq = k.seq
    LEFT JOIN kernel_names kn ON kn.name = k.name
    WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind = 'kernel'
), grouped AS (
    -- a new group at every kernel that is not memory-bound elementwise
    SELECT *, sum(CASE WHEN mem THEN 0 ELSE 1 END) OVER (PARTITION BY run_id, device_id ORDER BY start_ns, seq) AS grp
    FROM k
), sequences AS (
    SELECT run_id, device_id, grp, count(*) AS n,
        string_agg(coalesce(name, '?'), ' > ' ORDER BY start_ns, seq) AS signature,
        sum(dur_ns)::BIGINT AS total_ns, max(dur_ns)::BIGINT AS longest_ns
    FROM grouped WHERE mem
    GROUP BY run_id, device_id, grp
    HAVING count(*) >= 2
)
SELECT run_id, signature, any_value(n) AS kernels, count(*) AS times, sum(total_ns)::BIGINT AS total_ns,
    sum(total_ns - longest_ns)::BIGINT AS at_stake_ns
FROM sequences
GROUP BY run_id, signature
HAVING count(*) >= $min_times;
INSERT INTO _adv_findings BY NAME
WITH per AS (
    SELECT run_id, count(*) AS signatures, sum(times)::BIGINT AS times, sum(at_stake_ns)::BIGINT AS at_stake_ns,
        sum(total_ns)::BIGINT AS total_ns, arg_max(signature, (at_stake_ns, signature)) AS top,
        string_agg(kernels || ' kernels ' || signature || ', ' || times || ' times, ' || CAST(us(total_ns) AS VARCHAR)
                   || ' us (' || CAST(us(at_stake_ns) AS VARCHAR) || ' us beyond their longest kernels)', '; '
                   ORDER BY at_stake_ns DESC, signature) FILTER (WHERE place <= 3) AS shown
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY at_stake_ns DESC, signature) AS place
          FROM _adv_fusion)
    GROUP BY run_id
)
SELECT 'fusion' AS rule, p.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer,
    split_part(p.top, ' > ', 1) AS kernel, p.at_stake_ns, r.base_ns,
    p.times || ' sequences of memory-bound elementwise kernels back to back (' || p.signatures
        || CASE WHEN p.signatures = 1 THEN ' kind' ELSE ' kinds' END || ', each repeated): '
        || CAST(us(p.total_ns) AS VARCHAR) || ' us, of which ' || CAST(us(p.at_stake_ns) AS VARCHAR)
        || ' us beyond their longest kernels' AS finding,
    p.shown || CASE WHEN p.signatures > 3 THEN '; and ' || (p.signatures - 3) || ' more' ELSE '' END
        || ': tracedb report roofline ' || r.cmd || ' --phase all --by kernel (each kernel''s bytes and how near '
        || 'its memory roofline it runs)' AS evidence
FROM per p JOIN _adv_runs r USING (run_id)
WHERE 100.0 * p.at_stake_ns >= $min_pct * r.base_ns;
