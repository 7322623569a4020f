-- Report `pipeline`: per pipeline stage, rank, step and micro-batch (a forward or backward pass) its span, busy
-- time and the bubble before it; then per rank and step the stage's bubble in all, measured and as 1F1B's
-- ideal. As msprof-analyze's pp chart lays a PP domain's forward and backward blocks out per rank.
-- Times are each rank's own plus its clock offset (_pl_ranks: aligned on the collectives, else 0).
-- A pass's bubble is the time its rank's compute waited before it: its start minus the latest end of the
-- rank's passes of the step that started before it, or, for the step's first pass, minus the step's start (the
-- step's first kernel on the rank, a receive included); never below 0 (passes that overlap: DualPipe). It
-- holds the sends and receives between the passes (p2p: the union of their time in that wait) and any idle.
-- A stage row sums its step: busy, and bubble with the tail, the time from the rank's last pass end to the
-- pipeline's end (the latest last pass end of the ranks of its pipeline group in the step on its clock; a rank
-- whose group is unknown: its own end, tail 0); its span runs from the step's start to the pipeline's end,
-- bubble_pct = bubble / span. The ideal is 1F1B's (and GPipe's) bubble fraction (p - 1) / (m + p - 1) for p
-- stages and m micro-batches (the step's forward passes on the rank), every micro-batch taking as long.
-- Inputs: _pl_passes (pipeline_passes.sql), TEMP _pl_ranks(run_id INTEGER, rank INTEGER, stage INTEGER,
--   stages INTEGER, pipeline VARCHAR, offset_ns BIGINT, clock_set INTEGER) (tracedb.engine.reports.pipeline: the
--   stage of each run from pipeline_stage.sql, its pipeline group, its clock offset and clock set), kernels,
--   _p2p_names, runs.
-- Parameters:
--   $absolute BOOLEAN: start_us and end_us in the reference rank's absolute time instead of from the
--     earliest step start of the runs
-- Output: TEMP _pl_rows, the rows below with run_id and their order (ord) added
-- Output: rows, per stage, rank and step its passes in time order, then its stage row:
--   run VARCHAR: the run's name
--   rank INTEGER: its rank
--   pp_stage INTEGER: its pipeline stage, from 0 (its pipeline process group, else its send/receive order); empty when
--     unknown (the notes say why)
--   stages INTEGER: the pipeline's stages; empty when unknown
--   step BIGINT: the step (Step Id, ProfilerStep#N, the optimizer steps before it); empty when unknown
--   microbatch BIGINT: the micro-batch: the pass's place among its step's passes of its phase, from 0; empty on a
--     stage row
--   phase VARCHAR: forward | backward; empty on a stage row
--   pass BIGINT: the pass, numbered per phase as report passes numbers it; empty on a stage row
--   start_us DECIMAL(23,3): its first compute kernel's start (a stage row: the step's first kernel on the rank), from
--     the runs' earliest step start unless --absolute; aligned clocks
--   end_us DECIMAL(23,3): its last compute kernel's end (a stage row: the end of its pipeline group's last pass)
--   busy_us DECIMAL(23,3): the union of its compute kernels' intervals in its span (a stage row: summed)
--   bubble_us DECIMAL(23,3): the wait before it: its start minus the end of the rank's previous pass of the step, or
--     minus the step's start (a stage row: summed, with the tail after the rank's last pass)
--   p2p_us DECIMAL(23,3): the pipeline sends and receives in that wait (union of their time; a stage row: summed)
--   microbatches BIGINT: a stage row: m, the step's forward passes on the rank
--   bubble_pct DECIMAL(6,2): a stage row: bubble / (pipeline end - step start), %
--   ideal_1f1b_pct DECIMAL(6,2): a stage row: a 1F1B schedule's bubble fraction (p-1)/(m+p-1), p the stages, %
--   partial BOOLEAN: the pass holds another anchor count than the expected one (cut by the capture)
--   unit VARCHAR: pass | stage
CREATE OR REPLACE TEMP TABLE _pl_rows AS
WITH placed AS (
    SELECT p.*, r.rank, r.stage, r.stages, r.pipeline, r.clock_set, r.offset_ns,
        p.first_ns + r.offset_ns AS first_at, p.start_ns + r.offset_ns AS start_at, p.end_ns + r.offset_ns AS end_at
    FROM _pl_passes p JOIN _pl_ranks r USING (run_id)
), stepped AS (
    SELECT *, min(first_at) OVER (PARTITION BY run_id, step) AS step_at,
        max(end_at) OVER (PARTITION BY run_id, step ORDER BY start_at, end_at, phase DESC, pass
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM placed
), waited AS (
    SELECT *, coalesce(prev_end, step_at) AS wait_from,
        greatest(start_at - coalesce(prev_end, step_at), 0) AS bubble_ns
    FROM stepped
), sends AS (
    SELECT k.run_id, k.start_ns + r.offset_ns AS s, k.start_ns + k.dur_ns + r.offset_ns AS e
    FROM kernels k JOIN _pl_ranks r USING (run_id)
    WHERE k.name IN (SELECT name FROM _p2p_names)
), clipped AS (
    -- each send or receive's part inside a pass's wait
    SELECT w.run_id, w.phase, w.pass, k.s AS ks, greatest(k.s, w.wait_from) AS s, least(k.e, w.start_at) AS e
    FROM waited w JOIN sends k ON k.run_id = w.run_id AND k.s < w.start_at AND k.e > w.wait_from
    WHERE w.bubble_ns > 0
), reach AS (
    SELECT *, max(e) OVER (PARTITION BY run_id, phase, pass ORDER BY s, e, ks
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
    FROM clipped
), p2p AS (
    -- their union: a batched send and receive on two streams at once count once
    SELECT run_id, phase, pass, sum(greatest(e - greatest(s, coalesce(reach, s)), 0))::BIGINT AS p2p_ns
    FROM reach GROUP BY ALL
), rows AS (
    SELECT w.*, coalesce(q.p2p_ns, 0) AS p2p_ns FROM waited w LEFT JOIN p2p q USING (run_id, phase, pass)
), steps AS (
    SELECT run_id, step, any_value(rank) AS rank, any_value(stage) AS stage, any_value(stages) AS stages,
        any_value(pipeline) AS pipeline, any_value(clock_set) AS clock_set, min(step_at) AS step_at,
        max(end_at) AS last_end, sum(busy_ns)::BIGINT AS busy_ns, sum(bubble_ns)::BIGINT AS bubble_ns,
        sum(p2p_ns)::BIGINT AS p2p_ns, count(*) FILTER (WHERE phase = 'forward') AS m
    FROM rows GROUP BY run_id, step
), ends AS (
    SELECT *, max(last_end) OVER (PARTITION BY step, clock_set, pipeline) AS pipe_end FROM steps
), origin AS (
    SELECT CASE WHEN $absolute THEN 0 ELSE min(step_at) END AS t0 FROM steps
), unioned AS (
    SELECT r.run_id, r.rank, r.stage, r.stages, r.step, r.microbatch, r.phase, r.pass, r.start_at, r.end_at,
        r.busy_ns, r.bubble_ns, r.p2p_ns, NULL::BIGINT AS m, NULL::BIGINT AS span_ns, r.partial, 'pass' AS unit
    FROM rows r
    UNION ALL
    SELECT e.run_id, e.rank, e.stage, e.stages, e.step, NULL, NULL, NULL, e.step_at, e.pipe_end, e.busy_ns,
        e.bubble_ns + (e.pipe_end - e.last_end), e.p2p_ns, e.m, e.pipe_end - e.step_at, NULL, 'stage'
    FROM ends e
)
SELECT u.run_id, r.name AS run, u.rank, u.stage AS pp_stage, u.stages, u.step, u.microbatch, u.phase, u.pass,
    us(u.start_at - o.t0) AS start_us, us(u.end_at - o.t0) AS end_us, us(u.busy_ns) AS busy_us,
    us(u.bubble_ns) AS bubble_us, us(u.p2p_ns) AS p2p_us, u.m AS microbatches,
    round(100.0 * u.bubble_ns / nullif(u.span_ns, 0), 2)::DECIMAL(6, 2) AS bubble_pct,
    CASE WHEN u.unit = 'stage' AND u.stages >= 1 AND u.m >= 1
         THEN round(100.0 * (u.stages - 1) / (u.m + u.stages - 1), 2)::DECIMAL(6, 2) END AS ideal_1f1b_pct,
    u.partial, u.unit,
    row_number() OVER (ORDER BY u.stage NULLS LAST, u.rank NULLS LAST, u.run_id, u.step NULLS FIRST,
                       u.unit = 'stage', u.start_at, u.phase DESC, u.pass) AS ord
FROM unioned u JOIN runs r USING (run_id) CROSS JOIN origin o;
SELECT * EXCLUDE (run_id, ord) FROM _pl_rows ORDER BY ord;
