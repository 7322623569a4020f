-- Advise rule `slow-rank`: the findings of its candidates (advise_slow_rank_candidates.sql, where the trigger and
-- the threshold are), with the time the other ranks waited for the rank: report blame's waited_us charged to it
-- (sql/report/blame.sql: at each collective, the other members' time between their arrival and its arrival),
-- summed over its rows.
-- At stake: that waited time, as a share of the other ranks' step time; when no wait is known (blame could
-- not align the clocks or match collectives, or the job has none), the rank's compute excess over the median
-- rank's, as a share of its own step time.
-- Inputs: _adv_slow_cand, _adv_waits (run_id, waited_ns: report blame's rows summed per late rank), _adv_runs
--   (advise_runs.sql).
-- Parameters: none.
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per candidate:
--   rule VARCHAR: slow-rank
--   run_id INTEGER: the slow rank's run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the others' waiting for it, else its excess
--   base_ns BIGINT: the denominator of at_stake_pct: the other ranks' step time, else its own
--   finding VARCHAR: one line
--   evidence VARCHAR: the figures and the report commands
INSERT INTO _adv_findings BY NAME
WITH others AS (
    SELECT c.run_id, sum(o.base_ns) FILTER (WHERE o.run_id <> c.run_id)::BIGINT AS base_ns,
        coalesce(' --tag job=' || adv_word(c.job),
                 string_agg(' --run ' || adv_word(o.run), '' ORDER BY o.run_id)) AS job_args
    FROM _adv_slow_cand c
    JOIN _adv_runs o ON coalesce(o.job, '') = coalesce(c.job, '')
    GROUP BY c.run_id, c.job
)
SELECT 'slow-rank' AS rule, c.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel,
    CASE WHEN w.waited_ns > 0 THEN w.waited_ns ELSE c.excess_ns END AS at_stake_ns,
    CASE WHEN w.waited_ns > 0 THEN o.base_ns ELSE r.base_ns END AS base_ns,
    'rank ' || coalesce(CAST(r.rank AS VARCHAR), '?') || ' computes '
        || CAST(round(100.0 * c.excess_ns / c.median_ns, 1)::DECIMAL(7, 1) AS VARCHAR)
        || ' % longer than the median rank and is the slowest in ' || c.slowest_in || ' of '
        || CASE WHEN c.units = 1 AND NOT EXISTS (SELECT 1 FROM _adv_bd_step s WHERE s.run_id = c.run_id)
                THEN '1 run (no steps)' ELSE c.units || ' steps' END
        || CASE WHEN w.waited_ns > 0 THEN '; the other ' || (c.ranks - 1) || ' ranks waited '
                || CAST(us(w.waited_ns) AS VARCHAR) || ' us for it' ELSE '' END AS finding,
    'computing ' || CAST(us(c.compute_ns) AS VARCHAR) || ' us against the median rank''s '
        || CAST(us(c.median_ns) AS VARCHAR) || ' us (excess ' || CAST(us(c.excess_ns) AS VARCHAR)
        || ' us): tracedb report breakdown ' || replace(r.cmd, ' --run ' || adv_word(r.run), '')
        || o.job_args || CASE WHEN EXISTS (SELECT 1 FROM _adv_bd_step s WHERE s.run_id = c.run_id)
                              THEN ' --by step; ' ELSE '; ' END
        || CASE WHEN w.waited_ns > 0 THEN 'waits charged to it (waited_us): '
                ELSE 'no wait charged to it (waited_us): ' END
        || 'tracedb report blame ' || replace(r.cmd, ' --run ' || adv_word(r.run), '')
        || o.job_args AS evidence
FROM _adv_slow_cand c
JOIN _adv_runs r USING (run_id)
LEFT JOIN _adv_waits w USING (run_id)
LEFT JOIN others o USING (run_id);
