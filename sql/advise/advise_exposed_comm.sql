-- Advise rule `exposed-comm`: communication the device did not hide behind computing.
-- Trigger: report breakdown's comm_not_overlapped (the communication ops' union minus its overlap with the
-- computing kernels' union: breakdown_union.sql) summed over the run's steps (over the whole run without
-- steps) is at least $min_pct % of the run's step time (_adv_runs.base_ns).
-- Threshold source: 5 % by default, the share HTA's and TraceLens's overlap analyses start to flag; below it
-- the last bucket of a data-parallel step (which nothing can overlap) dominates.
-- At stake: the exposed communication time.
-- Split: where the job's other ranks say when they arrived (advise_comm_wait.sql), the exposed time is told
-- apart: waiting for the last rank to arrive (rule slow-rank and report blame say who and why) and moving
-- data (what overlap, bucketing and the link decide); the finding says both, and the time that no other rank
-- matched.
-- An Ascend rank folder without kernels (the profiler's analyses alone: report breakdown reads its
-- step_trace_time.csv) has its split from its communication.json (comm_ops): the collectives' Wait Time is the
-- waiting, the rest the transfer; its pipeline sends and receives (op class p2p) are left out of the exposed
-- time, as a pipeline stage's are everywhere (rule pipeline-bubble's: the schedule's waits, not overlap).
-- Limits: an HCCL op that includes its wait for a late rank counts it as communication, as the Ascend
-- profiler does; the split tells it apart only with the other ranks in the store.
-- Inputs: _adv_bd_run, _adv_bd_step (copies of breakdown_union.sql's _bd_units by run and by step), kernels,
--   comm_ops,
--   _adv_bd_split (breakdown_union.sql over advise_comm_wait.sql's activities: run_id, step, unit 'wait' or
--   'known', exposed_ns), _adv_runs (advise_runs.sql).
-- Parameters:
--   $min_pct DOUBLE: the least share of the step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: exposed-comm
--   run_id INTEGER: the run
--   step BIGINT: the step with the most exposed communication; NULL without steps
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the exposed communication time
--   base_ns BIGINT: the run's step time (_adv_runs.base_ns), the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the figures and the report command
INSERT INTO _adv_findings BY NAME
WITH units AS (
    SELECT run_id, step, communication_ns, busy_ns - computing_ns AS exposed_ns FROM _adv_bd_step
    UNION ALL
    SELECT run_id, NULL, communication_ns, busy_ns - computing_ns FROM _adv_bd_run
    WHERE run_id NOT IN (SELECT run_id FROM _adv_bd_step)
), profiled AS (
    -- a rank without kernels: its communication.json's ops (no kernel says when they overlapped computing)
    SELECT run_id, coalesce(sum(elapse_ns) FILTER (WHERE op_class = 'p2p'), 0)::BIGINT AS p2p_ns,
        coalesce(sum(wait_ns) FILTER (WHERE op_class IS DISTINCT FROM 'p2p'), 0)::BIGINT AS wait_ns
    FROM comm_ops
    WHERE run_id IN (SELECT run_id FROM _adv_runs) AND op_name <> 'Total Op Info'
      AND run_id NOT IN (SELECT run_id FROM kernels WHERE run_id IN (SELECT run_id FROM _adv_runs))
    GROUP BY run_id
), per AS (
    SELECT u.run_id, greatest(sum(u.exposed_ns) - coalesce(any_value(f.p2p_ns), 0), 0)::BIGINT AS exposed_ns,
        sum(u.exposed_ns)::BIGINT AS raw_ns,
        sum(u.communication_ns)::BIGINT AS comm_ns, any_value(f.p2p_ns) AS p2p_ns,
        arg_max(u.step, (u.exposed_ns, -u.step)) AS worst_step, max(u.exposed_ns) AS worst_ns,
        count(u.step) AS steps
    FROM units u LEFT JOIN profiled f USING (run_id)
    GROUP BY u.run_id
), split AS (
    SELECT run_id, coalesce(sum(exposed_ns) FILTER (WHERE unit = 'wait'), 0)::BIGINT AS wait_ns,
        coalesce(sum(exposed_ns) FILTER (WHERE unit = 'known'), 0)::BIGINT AS known_ns
    FROM _adv_bd_split
    GROUP BY run_id
    HAVING bool_or(unit = 'known')
    UNION ALL
    -- the profiler's own split of a rank without kernels: every op of it is known
    SELECT f.run_id, least(f.wait_ns, p.exposed_ns), p.exposed_ns
    FROM profiled f JOIN per p USING (run_id)
    WHERE p.exposed_ns > 0
)
SELECT 'exposed-comm' AS rule, p.run_id, p.worst_step AS step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel,
    p.exposed_ns AS at_stake_ns, r.base_ns,
    CAST(us(p.exposed_ns) AS VARCHAR) || ' us of communication not overlapped with computing ('
        || CAST(round(100.0 * p.exposed_ns / nullif(p.comm_ns, 0), 1)::DECIMAL(7, 1) AS VARCHAR)
        || ' % of the ' || CAST(us(p.comm_ns) AS VARCHAR) || ' us of communication)'
        || CASE WHEN p.p2p_ns IS NOT NULL AND x.known_ns > 0 THEN
            ': ' || CAST(us(x.wait_ns) AS VARCHAR) || ' us waiting for a peer (the profiler''s Wait Time), '
            || CAST(us(x.known_ns - x.wait_ns) AS VARCHAR) || ' us the rest of the ops'
            || CASE WHEN 2 * x.wait_ns >= p.exposed_ns THEN ' (mostly waiting: a late rank, not the overlap)'
                    ELSE '' END
           WHEN x.known_ns > 0 THEN
            ': ' || CAST(us(x.wait_ns) AS VARCHAR) || ' us waiting for the last rank to arrive, '
            || CAST(us(x.known_ns - x.wait_ns) AS VARCHAR) || ' us moving data'
            || CASE WHEN p.exposed_ns > x.known_ns THEN ', ' || CAST(us(p.exposed_ns - x.known_ns) AS VARCHAR)
                    || ' us in ops no other rank matched' ELSE '' END
            || CASE WHEN 2 * x.wait_ns >= p.exposed_ns THEN ' (mostly waiting: a late rank, not the overlap)'
                    ELSE '' END
           ELSE '' END
        || CASE WHEN p.p2p_ns > 0 THEN '; its pipeline sends and receives (' || CAST(us(p.p2p_ns) AS VARCHAR)
                || ' us) left out: the schedule''s' ELSE '' END AS finding,
    'comm_not_overlapped_us ' || CAST(us(p.raw_ns) AS VARCHAR)
        || CASE WHEN p.p2p_ns > 0 THEN ' (less its pipeline sends and receives: ' || CAST(us(p.exposed_ns) AS VARCHAR)
                || ')' ELSE '' END
        || CASE WHEN p.steps = 1 THEN ' in its one step, step ' || p.worst_step
                WHEN p.steps > 1 THEN ' over ' || p.steps || ' steps, the most in step ' || p.worst_step || ' ('
                || CAST(us(p.worst_ns) AS VARCHAR) || ' us)' ELSE '' END
        || ': tracedb report breakdown ' || r.cmd || CASE WHEN p.steps > 0 THEN ' --by step' ELSE '' END
        || CASE WHEN p.p2p_ns IS NOT NULL THEN '; the waiting is the Wait Time of its collectives in the profiler''s '
                || 'communication.json (a rank without kernels): tracedb report collectives ' || r.cmd
                WHEN x.wait_ns > 0 THEN '; the waits on the rank''s path (comm_wait): tracedb report critical-path '
                || r.cmd || ' --by category' ELSE '' END AS evidence
FROM per p JOIN _adv_runs r USING (run_id) LEFT JOIN split x USING (run_id)
WHERE p.exposed_ns > 0 AND 100.0 * p.exposed_ns >= $min_pct * r.base_ns;
