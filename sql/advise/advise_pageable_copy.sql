-- Advise rule `pageable-copy`: copies between the device and pageable (not pinned) host memory.
-- Trigger: a run's copies whose activity names pageable memory (Kineto's "Memcpy HtoD (Pageable -> Device)",
-- "Memcpy DtoH (Device -> Pageable)", as CUPTI reports the host side) take at least $min_pct % of its step time.
-- A copy from or to pageable memory is staged through a pinned buffer by the driver: it runs at a fraction of
-- the link's rate, and the host call returns only when the host side is done, whatever the stream (CUDA's
-- "API synchronization behavior"): the host stops queueing work meanwhile.
-- Threshold source: 1 %, as rule sync-in-step: a step that pins its buffers has none of these copies, so
-- their time is this rule's alone.
-- At stake: the copies' device time: what pinned buffers with non_blocking copies (overlapped with
-- computing on their own stream) take off the step, less what a pinned copy of the same bytes still takes.
-- Limits: Nsight Systems exports and rocprofv3 traces name copies by direction only ([CUDA memcpy
-- Host-to-Device]): silent there. Ascend's host copies are runtime tasks kernel_details.csv leaves out.
-- Inputs: kernels, host_events, _adv_runs (advise_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $min_pct DOUBLE: the least share of the step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: pageable-copy
--   run_id INTEGER: the run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the copy's name with the most time
--   at_stake_ns BIGINT: the copies' device time
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: counts and time per copy kind, and the report command
INSERT INTO _adv_findings BY NAME
WITH copies AS (
    SELECT run_id, name, count(*) AS n, sum(dur_ns)::BIGINT AS ns
    FROM kernels
    WHERE run_id IN (SELECT unnest($run_ids)) AND kind = 'memcpy' AND regexp_matches(name, '(?i)pageable')
    GROUP BY run_id, name
), per AS (
    SELECT run_id, sum(n)::BIGINT AS n, sum(ns)::BIGINT AS ns, arg_max(name, ns) AS name,
        string_agg(n || ' x ' || name || ': ' || CAST(us(ns) AS VARCHAR) || ' us', '; ' ORDER BY ns DESC, name)
            AS shown
    FROM copies GROUP BY run_id
)
SELECT 'pageable-copy' AS rule, p.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer, p.name AS kernel,
    p.ns AS at_stake_ns, r.base_ns,
    p.n || CASE WHEN p.n = 1 THEN ' copy' ELSE ' copies' END || ' to or from pageable host memory took '
        || CAST(us(p.ns) AS VARCHAR) || ' us on the device' AS finding,
    p.shown || '; memcpy_us per step: tracedb report breakdown ' || r.cmd
        || CASE WHEN r.steps > 0 THEN ' --by step' ELSE '' END AS evidence
FROM per p JOIN _adv_runs r USING (run_id)
WHERE 100.0 * p.ns >= $min_pct * r.base_ns;
