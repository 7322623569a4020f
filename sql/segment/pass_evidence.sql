-- What started each pass of the runs, and how much device time the passes each kind of evidence started
-- hold: a pass's notes name the evidence that decided it, strongest first.
-- Inputs: _anchors (anchor_breaks.sql: the marks the trace puts between anchors), _anchor_pass, _windows
--   (segment_passes.sql, segment_windows.sql), _stream (the kernels of the phase segmented).
-- Parameters: none.
-- Output: rows, one per run and kind of evidence, in run order then strongest evidence first:
--   run_id INTEGER: the run
--   evidence VARCHAR: step (a step annotation, Step Id or ProfilerStep#N), replay (a CUDA/HIP graph replay
--     holding whole passes), module (the model's nn.Module blocks called again), kind (the anchor changes
--     between prefill and decode kernels), work (other work between two anchors: another phase, a pipeline
--     send/receive, an embedding or sampling kernel), gap (an anchor gap that stands out), count (cut at the
--     expected count of anchors, no mark), start (the run's first pass)
--   passes BIGINT: passes started by it
--   dur_ns HUGEINT: the device time of the kernels in those passes' windows
WITH firsts AS (
    SELECT p.run_id, p.pass, p.idx, p.grp, lag(p.grp) OVER (PARTITION BY p.run_id ORDER BY p.idx) AS prev_grp
    FROM _anchor_pass p
), started AS (
    SELECT f.run_id, f.pass,
        CASE WHEN f.prev_grp IS NULL THEN 'start'
             WHEN a.step_break AND NOT a.replay_break AND NOT a.kind_break THEN 'step'
             WHEN a.replay_break THEN 'replay'
             WHEN a.module_break THEN 'module'
             WHEN a.kind_break THEN 'kind'
             WHEN a.forced THEN 'work'
             WHEN f.grp <> f.prev_grp THEN 'gap'
             ELSE 'count' END AS evidence
    FROM firsts f JOIN _anchors a ON a.run_id = f.run_id AND a.idx = f.idx
    QUALIFY row_number() OVER (PARTITION BY f.run_id, f.pass ORDER BY f.idx) = 1
), timed AS (
    SELECT s.run_id, s.evidence, s.pass,
        (SELECT coalesce(sum(k.dur_ns), 0) FROM _stream k
         WHERE k.run_id = w.run_id AND k.start_ns BETWEEN w.win_start AND w.win_end) AS dur_ns
    FROM started s JOIN _windows w USING (run_id, pass)
)
SELECT run_id, evidence, count(*) AS passes, sum(dur_ns) AS dur_ns
FROM timed
GROUP BY run_id, evidence
ORDER BY run_id, list_position(['step', 'replay', 'module', 'kind', 'work', 'gap', 'count', 'start'], evidence);
