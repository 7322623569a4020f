-- Breaks the trace itself puts between two consecutive anchors of a stream, whatever their gap:
-- * work of another phase between them (a backward pass and the optimizer step between two forward
--   passes; a forward micro-batch between two backward ones in 1F1B), or a pipeline send/receive (a
--   pipeline stage's micro-batches, back to back within one phase);
-- * but not when such work lies between most consecutive anchors: then the schedule interleaves the
--   phases layer by layer (DualPipe overlaps a forward and a backward chunk), and those gaps are inside
--   one pass.
-- Also marks the anchors after optimizer work: they start a new training step.
-- Inputs: _anchors (segment_anchors.sql or anchor_candidates.sql, with src_run, the run the anchor's
--   kernel belongs to), _phase (kernel_phases.sql), kernels.
-- Parameters:
--   $phase VARCHAR: the phase of the stream (forward | backward)
--   $p2p VARCHAR: RE2 pattern of pipeline send/receive names
-- Output: TEMP _anchors, the same rows with two columns added:
--   forced BOOLEAN: a pass starts at this anchor, whatever the gap before it
--   after_optimizer BOOLEAN: optimizer work lies between the previous anchor and this one
-- TEMP _break_marks is scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _break_marks AS
WITH runs AS (
    SELECT DISTINCT src_run AS run_id FROM _anchors
), p2p_names AS (
    SELECT DISTINCT name FROM kernels WHERE run_id IN (SELECT run_id FROM runs) AND regexp_matches(name, $p2p)
), marks AS (
    SELECT run_id, start_ns, phase = 'optimizer' AS opt FROM _phase
    WHERE phase <> $phase AND run_id IN (SELECT run_id FROM runs)
    UNION ALL
    SELECT k.run_id, k.start_ns, false FROM kernels k JOIN p2p_names USING (name)
    WHERE k.run_id IN (SELECT run_id FROM runs)
)
SELECT run_id, start_ns, count(*) OVER w AS n, count(*) FILTER (WHERE opt) OVER w AS n_opt
FROM marks
WINDOW w AS (PARTITION BY run_id ORDER BY start_ns ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE OR REPLACE TEMP TABLE _anchors AS
WITH counted AS (
    SELECT a.*, coalesce(m.n, 0) AS n_before, coalesce(m.n_opt, 0) AS opt_before
    FROM _anchors a ASOF LEFT JOIN _break_marks m ON m.run_id = a.src_run AND a.start_ns > m.start_ns
), flagged AS (
    SELECT *, coalesce(n_before > lag(n_before) OVER w, false) AS marked,
        coalesce(opt_before > lag(opt_before) OVER w, false) AS after_optimizer
    FROM counted
    WINDOW w AS (PARTITION BY run_id ORDER BY idx)
)
SELECT * EXCLUDE (n_before, opt_before, marked),
    marked AND coalesce(avg(marked::INTEGER) FILTER (WHERE idx > 0) OVER (PARTITION BY run_id), 0) < 0.5 AS forced
FROM flagged;
DROP TABLE _break_marks;
