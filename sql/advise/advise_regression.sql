-- Advise rule `regression` (with --baseline): a run whose step takes markedly longer than its baseline run's.
-- Trigger: a run's mean step time (its step time over its steps, advise_runs.sql; without steps, its span as one)
-- exceeds its baseline's by at least $min_pct %. Each run is compared with the baseline run of its rank when the
-- baseline is several runs (a job against a job), else with the one baseline run (_adv_pairs).
-- Threshold source: 5 %, as rule slow-rank: steps of one run vary by ~1-2 % from step to step (report passes'
-- pass times; ranks running the same kernels differ by 0.3-1.5 %, docs/ranks.md), so 5 % is no jitter.
-- At stake: (the run's mean step - the baseline's) x the run's steps: the time the run spent over what the
-- baseline's steps would take.
-- Evidence: the kernels whose time per step grew most (their summed time over the run's steps, against the
-- baseline's over its own), and the report that compares the two runs layer by layer.
-- Limits: a run with steps and a baseline without (or the reverse) measure different things (steps against a
-- span): not compared, a note says so. The step time includes what the host did; a change of batch size or
-- sequence length is a regression here too: compare like with like.
-- Inputs: _adv_runs (the selected runs), _adv_base_runs (advise_runs.sql's rows for the baseline runs),
--   _adv_pairs (run_id, base_id), kernels.
-- Parameters:
--   $min_pct DOUBLE: the least growth of the mean step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run at or above the threshold:
--   rule VARCHAR: regression
--   run_id INTEGER: the run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the kernel whose time per step grew most
--   at_stake_ns BIGINT: the run's step time over the baseline's, summed over its steps
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the kernels that grew and the report command
INSERT INTO _adv_findings BY NAME
WITH paired AS (
    SELECT p.run_id, p.base_id, r.base_ns AS run_ns, greatest(r.steps, 1) AS run_steps,
        b.base_ns AS old_ns, greatest(b.steps, 1) AS old_steps, b.run AS base_run, r.cmd
    FROM _adv_pairs p
    JOIN _adv_runs r ON r.run_id = p.run_id
    JOIN _adv_base_runs b ON b.run_id = p.base_id
    WHERE r.base = b.base AND r.base_ns > 0 AND b.base_ns > 0
), grown AS (
    SELECT run_id, run_ns / run_steps AS now_ns, old_ns / old_steps AS then_ns, run_steps, base_run, base_id, cmd,
        ((run_ns / run_steps - old_ns / old_steps) * run_steps)::BIGINT AS at_stake_ns, run_ns
    FROM paired
    WHERE 100.0 * (run_ns / run_steps - old_ns / old_steps) >= $min_pct * (old_ns / old_steps)
), per_kernel AS (
    -- each kernel name's time per step in the run and in its baseline
    SELECT g.run_id, coalesce(k.name, k.op_type, '?') AS kernel,
        sum(k.dur_ns) FILTER (WHERE k.run_id = g.run_id) / g.run_steps AS now_ns,
        coalesce(sum(k.dur_ns) FILTER (WHERE k.run_id = g.base_id), 0) / any_value(p.old_steps) AS then_ns
    FROM grown g
    JOIN paired p USING (run_id)
    JOIN kernels k ON k.run_id IN (g.run_id, g.base_id)
    WHERE k.kind IN ('kernel', 'comm', 'memcpy', 'memset')
    GROUP BY g.run_id, g.run_steps, coalesce(k.name, k.op_type, '?')
), top AS (
    SELECT run_id, arg_max(kernel, now_ns - coalesce(then_ns, 0)) AS kernel,
        string_agg(kernel || ' ' || CASE WHEN now_ns >= then_ns THEN '+' ELSE '' END
                   || CAST(us((coalesce(now_ns, 0) - then_ns)::BIGINT) AS VARCHAR) || ' us',
                   ', ' ORDER BY coalesce(now_ns, 0) - then_ns DESC, kernel)
            FILTER (WHERE growth_rank <= 3 AND coalesce(now_ns, 0) > then_ns) AS shown
    FROM (SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY coalesce(now_ns, 0) - then_ns DESC, kernel)
                     AS growth_rank
          FROM per_kernel)
    GROUP BY run_id
)
SELECT 'regression' AS rule, g.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer, t.kernel,
    g.at_stake_ns, g.run_ns AS base_ns,
    'the step takes ' || CAST(us(g.now_ns::BIGINT) AS VARCHAR) || ' us against ' || CAST(us(g.then_ns::BIGINT) AS VARCHAR)
        || ' us in baseline run ''' || g.base_run || ''' (+'
        || CAST(round(100.0 * (g.now_ns - g.then_ns) / g.then_ns, 1)::DECIMAL(9, 1) AS VARCHAR) || ' %), over '
        || g.run_steps || CASE WHEN g.run_steps = 1 THEN ' step' ELSE ' steps' END AS finding,
    'device time per step that grew most: ' || coalesce(t.shown, 'none') || '; layer by layer: tracedb report compare '
        || replace(g.cmd, ' --run ', ' --run ' || adv_word(g.base_run) || ' --run ') AS evidence
FROM grown g LEFT JOIN top t USING (run_id)
WHERE g.at_stake_ns > 0;
