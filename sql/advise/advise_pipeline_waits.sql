-- Advise: the stretches in which a pipeline stage waited for the other stages (report pipeline's bubbles), so that
-- rules idle-gap and exposed-comm leave them to rule pipeline-bubble, which judges them against the schedule's
-- ideal: a 1F1B pipeline of p stages and m micro-batches idles (p - 1) / (m + p - 1) of each step by design.
-- Per pipeline-stage run (_pl_ranks, stages > 1) and step, on the run's own clock:
--   before its first pass: from the step's start (its first kernel, a receive included) to the pass's start;
--   between its passes: from the latest end of the passes before to the next pass's start;
--   the tail: from its last pass's end to the pipeline's end, the latest last pass end of the ranks of its
--     pipeline group and clock set (each moved by its clock offset).
-- Inputs: _pl_passes (pipeline_passes.sql), _pl_ranks (tracedb.engine.reports.pipeline).
-- Parameters: none.
-- Output: TEMP _adv_pp_waits, one row per wait, the waits of a run never overlapping:
--   run_id INTEGER: the run
--   step BIGINT: the step
--   s BIGINT: the wait's start, ns on the run's clock
--   e BIGINT: its end
CREATE OR REPLACE TEMP TABLE _adv_pp_waits AS
WITH staged AS (
    SELECT p.*, r.pipeline, r.clock_set, r.offset_ns
    FROM _pl_passes p JOIN _pl_ranks r USING (run_id)
    WHERE r.stages > 1 AND p.step IS NOT NULL
), ordered AS (
    SELECT run_id, step, start_ns, end_ns,
        max(end_ns) OVER (PARTITION BY run_id, step ORDER BY start_ns, end_ns
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end,
        min(first_ns) OVER (PARTITION BY run_id, step) AS step_start
    FROM staged
), ends AS (
    SELECT run_id, step, pipeline, clock_set, offset_ns, max(end_ns) AS last_end FROM staged GROUP BY ALL
), pipeline_end AS (
    SELECT e.run_id, e.step, e.last_end,
        max(o.last_end + o.offset_ns) - e.offset_ns AS end_ns
    FROM ends e JOIN ends o ON o.step = e.step AND o.pipeline = e.pipeline AND o.clock_set = e.clock_set
    GROUP BY e.run_id, e.step, e.last_end, e.offset_ns
), waits AS (
    SELECT run_id, step, coalesce(prev_end, step_start) AS s, start_ns AS e FROM ordered
    UNION ALL
    SELECT run_id, step, last_end, end_ns FROM pipeline_end
)
SELECT run_id, step, s, e FROM waits WHERE e > s;
