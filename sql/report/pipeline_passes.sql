-- Report `pipeline`, once per phase segmented: each pass (a micro-batch) of the runs with its span and busy
-- time, added to TEMP _pl_passes. A pass's compute is its kernels but the pipeline sends and receives
-- (_p2p_names): a receive waits for another stage, so it is the bubble before a pass, not the pass's own work;
-- and only those after the last send/receive before its first anchor and before the first one after its last
-- anchor. start and end are its first compute kernel's start and its last one's end; busy is the union of its
-- compute kernels' intervals (kernels on parallel streams count once), so end - start - busy is the idle time
-- inside the pass; first is its first kernel of any kind (a receive included), for the start of its step.
-- Inputs: _assigned (the passes of the phase, every one assigned), _passes, _pass_info (segment_steps.sql),
--   kernels, _p2p_names (tracedb.engine.segmentation.phases.find_phases).
-- Parameters:
--   $phase VARCHAR: forward | backward, the phase of _passes
-- Output: TEMP _pl_passes, rows of this phase added, one per (run, pass) with a compute kernel:
--   run_id INTEGER: the run
--   phase VARCHAR: forward | backward
--   pass BIGINT: the pass, numbered per phase
--   step BIGINT: its step (_pass_info); NULL when unknown
--   microbatch BIGINT: its place among its step's passes of the phase, from 0
--   partial BOOLEAN: its anchor count differs from the expected one
--   first_ns BIGINT: its first kernel's start, a send or receive included
--   start_ns BIGINT: its first compute kernel's start
--   end_ns BIGINT: its last compute kernel's end
--   busy_ns BIGINT: the union of its compute kernels' intervals
CREATE TEMP TABLE IF NOT EXISTS _pl_passes (run_id INTEGER, phase VARCHAR, pass BIGINT, step BIGINT,
    microbatch BIGINT, partial BOOLEAN, first_ns BIGINT, start_ns BIGINT, end_ns BIGINT, busy_ns BIGINT);
INSERT INTO _pl_passes
WITH sends AS (
    SELECT k.run_id, k.seq FROM kernels k
    WHERE k.run_id IN (SELECT DISTINCT run_id FROM _passes) AND k.name IN (SELECT name FROM _p2p_names)
), marked AS (
    SELECT a.run_id, a.pass, a.seq, a.start_ns, a.end_ns, (a.run_id, a.seq) IN (SELECT run_id, seq FROM sends) AS p2p
    FROM _assigned a
), firsts AS (
    SELECT run_id, pass, min(start_ns) AS first_ns FROM marked GROUP BY ALL
), bounds AS (
    -- the pass's own work lies between the last send/receive before its first anchor and the first one after
    -- its last anchor: a kernel beyond them waited for that receive, and is the next pass's (the first GEMM of
    -- a backward pass whose phase the work around it gave: Megatron on Ascend, stage 0)
    SELECT m.run_id, m.pass,
        max(m.start_ns) FILTER (WHERE m.p2p AND m.start_ns < p.first_start) AS lo_ns,
        min(m.start_ns) FILTER (WHERE m.p2p AND m.start_ns > p.last_end) AS hi_ns
    FROM marked m JOIN _passes p USING (run_id, pass) GROUP BY ALL
), own AS (
    SELECT m.* FROM marked m JOIN bounds b USING (run_id, pass)
    WHERE NOT m.p2p AND (b.lo_ns IS NULL OR m.start_ns > b.lo_ns) AND (b.hi_ns IS NULL OR m.start_ns < b.hi_ns)
), reach AS (
    -- the latest end among the pass's compute kernels that started before this one: a kernel starting after
    -- it opens a new busy stretch
    SELECT run_id, pass, seq, start_ns, end_ns,
        max(end_ns) OVER (PARTITION BY run_id, pass ORDER BY start_ns, end_ns, seq
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach_ns
    FROM own
), stretches AS (
    SELECT run_id, pass, start_ns, end_ns,
        sum(CASE WHEN reach_ns IS NULL OR start_ns > reach_ns THEN 1 ELSE 0 END)
            OVER (PARTITION BY run_id, pass ORDER BY start_ns, end_ns, seq ROWS UNBOUNDED PRECEDING) AS stretch
    FROM reach
), busy AS (
    SELECT run_id, pass, min(s) AS start_ns, max(e) AS end_ns, sum(e - s)::BIGINT AS busy_ns
    FROM (SELECT run_id, pass, stretch, min(start_ns) AS s, max(end_ns) AS e FROM stretches GROUP BY ALL)
    GROUP BY ALL
)
SELECT b.run_id, $phase, b.pass, i.step, i.microbatch, p.partial, f.first_ns, b.start_ns, b.end_ns, b.busy_ns
FROM busy b JOIN firsts f USING (run_id, pass) JOIN _passes p USING (run_id, pass)
LEFT JOIN _pass_info i USING (run_id, pass);
