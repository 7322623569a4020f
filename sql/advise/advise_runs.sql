-- Advise: the selected runs with what every rule needs: the vendor whose vocabulary the advice uses, the
-- run's step time (the denominator of at_stake_pct) and its arguments for the evidence commands.
-- Step time: the sum of the run's ProfilerStep#N annotations on the host (torch.profiler's prof.step(), as
-- breakdown_steps.sql reads them); else, for a run whose kernels carry their step (Ascend kernel_details.csv's
-- Step Id: kernels.step_id, which breakdown_steps.sql reads too), the sum over its steps of each step's device
-- span (first start to last end of the step's activities); else, for an Ascend rank without kernels, the sum of
-- its step_trace_time.csv steps' Stage; else the run's span (first start to last end of its device activities).
-- Vendor: ascend for device_kind npu, amd for an AMD device name or a rocprof/rocpd format, else nvidia for a
-- GPU; NULL when neither is known.
-- Inputs: runs, kernels, host_events, step_times.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $db VARCHAR: the store's path, already a shell word, for the evidence commands
-- Output: TEMP MACRO adv_word(s): s as one shell word (single-quoted unless it is plain)
-- Output: TEMP _adv_marks, one row per ProfilerStep#N annotation of the runs (torch.profiler's prof.step(); their
--   GPU-side copies, gpu_user_annotation, left out), which the step time and the rules' steps read:
--   run_id INTEGER: the run
--   step BIGINT: N
--   start_ns BIGINT: start, ns
--   end_ns BIGINT: end, ns
-- Output: TEMP _adv_runs, one row per run:
--   run_id INTEGER: the run
--   run VARCHAR: its name
--   rank INTEGER: its rank (runs.rank); NULL when unknown
--   job VARCHAR: its tag job (a job's ranks share it); NULL without one
--   vendor VARCHAR: nvidia | amd | ascend; NULL when unknown
--   steps BIGINT: its ProfilerStep#N annotations, else its Step Ids
--   step_ns BIGINT: their summed duration (a Step Id: its activities' span); NULL without any
--   first_ns BIGINT: the first start of its device activities
--   last_ns BIGINT: the last end of them
--   span_ns BIGINT: first start to last end of its device activities
--   base_ns BIGINT: the denominator of at_stake_pct: step_ns, else span_ns
--   base VARCHAR: step | span: which one
--   step_source VARCHAR: ProfilerStep#N | Step Id | step_trace_time.csv: where the steps come from; NULL without
--     steps
--   cmd VARCHAR: `--db DB --run RUN`, shell-quoted
-- Output: TEMP _adv_findings, empty: every rule (advise_*.sql) adds its findings to it, one row each; a rule that
--   does not run adds none:
--   rule VARCHAR: the rule
--   run_id INTEGER: the run the finding is about
--   step BIGINT: the step it is about; NULL: every step
--   layer BIGINT: the layer; NULL: none
--   kernel VARCHAR: the kernel or collective; NULL: none
--   at_stake_ns BIGINT: the time at stake
--   base_ns BIGINT: the step time at_stake_pct is of
--   finding VARCHAR: one line
--   evidence VARCHAR: the rows that show it and the report command
CREATE OR REPLACE TEMP TABLE _adv_findings (rule VARCHAR, run_id INTEGER, step BIGINT, layer BIGINT, kernel VARCHAR,
    at_stake_ns BIGINT, base_ns BIGINT, finding VARCHAR, evidence VARCHAR);
CREATE OR REPLACE TEMP MACRO adv_word(s) AS
    CASE WHEN regexp_full_match(s, '[A-Za-z0-9._/:=@+,-]+') THEN s ELSE '''' || replace(s, '''', '''"''"''') || '''' END;
CREATE OR REPLACE TEMP TABLE _adv_marks AS
SELECT run_id, CAST(regexp_extract(name, '^ProfilerStep#(\d+)$', 1) AS BIGINT) AS step, start_ns,
    start_ns + dur_ns AS end_ns
FROM host_events
WHERE run_id IN (SELECT unnest($run_ids)) AND regexp_matches(name, '^ProfilerStep#\d+$')
  AND cat IS DISTINCT FROM 'gpu_user_annotation';
CREATE OR REPLACE TEMP TABLE _adv_runs AS
WITH marks AS (
    SELECT run_id, count(*) AS steps, sum(end_ns - start_ns)::BIGINT AS step_ns FROM _adv_marks GROUP BY run_id
), step_ids AS (
    -- Ascend kernel_details.csv: each kernel's Step Id; a step's time is its activities' span on the device
    SELECT run_id, count(*) AS steps, sum(e - s)::BIGINT AS step_ns
    FROM (SELECT run_id, step_id, min(start_ns) AS s, max(start_ns + dur_ns) AS e
          FROM kernels
          WHERE run_id IN (SELECT unnest($run_ids)) AND run_id NOT IN (SELECT run_id FROM marks)
            AND step_id IS NOT NULL AND kind IN ('kernel', 'comm', 'memcpy', 'memset')
          GROUP BY run_id, step_id)
    GROUP BY run_id
), trace_steps AS (
    -- an Ascend rank folder without kernels (its analyses alone): each step of its step_trace_time.csv, the
    -- step's time its Stage (Computing + Communication(Not Overlapped) + Free)
    SELECT run_id, count(DISTINCT step) AS steps,
        sum(coalesce(stage_ns, computing_ns + coalesce(comm_not_overlapped_ns, 0) + coalesce(free_ns, 0)))::BIGINT
            AS step_ns
    FROM step_times
    WHERE run_id IN (SELECT unnest($run_ids)) AND run_id NOT IN (SELECT run_id FROM marks)
      AND run_id NOT IN (SELECT run_id FROM kernels WHERE run_id IN (SELECT unnest($run_ids)))
      AND step IS NOT NULL AND (stage_ns IS NOT NULL OR computing_ns IS NOT NULL)
    GROUP BY run_id
), stepped AS (
    SELECT run_id, steps, step_ns, 'ProfilerStep#N' AS step_source FROM marks
    UNION ALL
    SELECT run_id, steps, step_ns, 'Step Id' FROM step_ids
    UNION ALL
    SELECT run_id, steps, step_ns, 'step_trace_time.csv' FROM trace_steps
), spans AS (
    SELECT run_id, min(start_ns) AS first_ns, max(start_ns + dur_ns) AS last_ns,
        (max(start_ns + dur_ns) - min(start_ns))::BIGINT AS span_ns
    FROM kernels
    WHERE run_id IN (SELECT unnest($run_ids)) AND kind IN ('kernel', 'comm', 'memcpy', 'memset')
    GROUP BY run_id
)
SELECT r.run_id, r.name AS run, r.rank, list_extract(map_extract(r.tags, 'job'), 1) AS job,
    CASE WHEN r.device_kind = 'npu' THEN 'ascend'
         WHEN regexp_matches(coalesce(r.device_name, ''), '(?i)(AMD|Instinct|MI[0-9]{3}|gfx[0-9])')
              OR regexp_matches(coalesce(r.format, ''), '(?i)roc') THEN 'amd'
         WHEN r.device_kind = 'gpu' THEN 'nvidia' END AS vendor,
    coalesce(m.steps, 0)::BIGINT AS steps, m.step_ns, s.first_ns, s.last_ns, s.span_ns,
    CASE WHEN m.step_ns > 0 THEN m.step_ns ELSE s.span_ns END AS base_ns,
    CASE WHEN m.step_ns > 0 THEN 'step' ELSE 'span' END AS base, m.step_source,
    '--db ' || $db || ' --run ' || adv_word(r.name) AS cmd
FROM runs r
LEFT JOIN stepped m USING (run_id)
LEFT JOIN spans s USING (run_id)
WHERE r.run_id IN (SELECT unnest($run_ids));
