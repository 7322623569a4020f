-- Advise rule `pipeline-bubble`: a pipeline stage waited longer between its micro-batches than its schedule
-- makes it wait.
-- Trigger: report pipeline's stage rows (one per rank and step: its passes' busy time, and its bubble: the waits
-- before its passes plus the tail to its pipeline group's last pass); a 1F1B (or GPipe) schedule of p stages and
-- m micro-batches of equal time leaves each stage a bubble of (p - 1) / m of its busy time (the fraction
-- (p - 1) / (m + p - 1) of the step that report pipeline's ideal_1f1b_pct gives). The excess over it, summed
-- over the rank's steps, is at least $min_pct % of the rank's step time (_adv_runs.base_ns).
-- Threshold source: 5 %: the waits a schedule adds beside its ideal (each pass's receive and launch, a few
-- us a pass: 2 % of the test pipeline's steps) stay under it; a stage that stalls, a slow stage or an
-- unbalanced split of layers over the stages do not.
-- At stake: per rank, that excess bubble: the time it would gain if the pipeline ran its schedule's ideal.
-- Limits: the ideal is 1F1B's (and GPipe's): an interleaved (virtual) pipeline or DualPipe has a smaller one,
-- so their excess is understated. Passes of unequal time (the first and last stages' embedding and loss) add
-- a bubble the ideal does not have. A rank whose stage report pipeline cannot tell has no stage row: silent.
-- Inputs: _pl_rows (report pipeline's rows, pipeline_report.sql: its stage rows, unit 'stage'), _adv_runs
--   (advise_runs.sql).
-- Parameters:
--   $min_pct DOUBLE: the least share of the step time, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per rank at or above the threshold:
--   rule VARCHAR: pipeline-bubble
--   run_id INTEGER: the rank's run
--   step BIGINT: the step with the most excess when there are several, else that step
--   layer BIGINT: NULL
--   kernel VARCHAR: NULL
--   at_stake_ns BIGINT: the excess bubble over the rank's steps
--   base_ns BIGINT: the run's step time, the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: its bubble against the ideal, and the report command
INSERT INTO _adv_findings BY NAME
WITH rows_ AS (
    -- µs with 3 decimals: exact ns
    SELECT run_id, step, CAST(busy_us * 1000 AS BIGINT) AS busy_ns, CAST(bubble_us * 1000 AS BIGINT) AS bubble_ns,
        microbatches AS m, stages AS p, CAST(busy_us * 1000 * (stages - 1) / microbatches AS BIGINT) AS ideal_ns
    FROM _pl_rows
    WHERE unit = 'stage' AND run_id IN (SELECT run_id FROM _adv_runs) AND stages >= 2 AND microbatches >= 1 AND busy_us > 0 AND bubble_us IS NOT NULL
), per AS (
    SELECT run_id, sum(greatest(bubble_ns - ideal_ns, 0))::BIGINT AS ns, sum(bubble_ns)::BIGINT AS bubble,
        sum(ideal_ns)::BIGINT AS ideal, arg_max(step, bubble_ns - ideal_ns) AS worst, any_value(p) AS p,
        any_value(m) AS m, count(*) AS steps
    FROM rows_ GROUP BY run_id
)
SELECT 'pipeline-bubble' AS rule, p.run_id, p.worst AS step, NULL::BIGINT AS layer, NULL::VARCHAR AS kernel,
    p.ns AS at_stake_ns, r.base_ns,
    'pipeline stage bubbles ' || CAST(us(p.bubble) AS VARCHAR) || ' us, ' || CAST(us(p.ns) AS VARCHAR)
        || ' us more than a 1F1B schedule of ' || p.p || ' stages and ' || p.m || ' micro-batches leaves it ('
        || CAST(us(p.ideal) AS VARCHAR) || ' us: (p - 1) / m of its busy time)' AS finding,
    'bubble_us against ideal_1f1b_pct per stage, and the wait before each micro-batch: tracedb report pipeline '
        || replace(r.cmd, ' --run ' || adv_word(r.run), '')
        || coalesce(' --tag job=' || adv_word(r.job),
                    ' --run ' || adv_word(r.run)) AS evidence
FROM per p JOIN _adv_runs r USING (run_id)
WHERE 100.0 * p.ns >= $min_pct * r.base_ns;
