-- Stage 3: the time window of every pass; a kernel belongs to a pass when win_start <= start <= win_end.
-- strict: [first anchor start, last anchor end].
-- full:   consecutive passes of one step split the idle stretch between them at its largest gap, so
--   embedding, layer-0 pre-attention, the last FFN, lm_head and sampling are counted. Within the stretch after a
--   pass's last anchor and before the next pass's first anchor, each kernel's gap is its start minus the
--   latest end seen before it (the anchor end included); the gap before the next first anchor counts
--   too. Largest gap wins, the earliest on ties. The first pass reaches back to the run's first kernel,
--   the last pass forward to its last one.
-- Training traces: the stream holds one phase's kernels (segment_stream.sql), so a forward pass's window
--   never absorbs the backward pass and optimizer step that follow it (Megatron on Ascend: 620 ms of
--   backward counted in a forward pass's last layer otherwise), and the idle stretch between two forward
--   passes is where the other phases ran.
--   Passes of different steps split where the later step starts on the device (the first kernel of its
--   Step Id, the GPU-side ProfilerStep#N), so a prologue never holds the previous step's tail.
-- Inputs: _passes, _pass_info (segment_steps.sql), _stream (segment_stream.sql), host_events.
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
--   $window VARCHAR: 'strict' | 'full'
-- Output: TEMP _windows, one row per (run, pass) of _passes:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   win_start BIGINT: ns, inclusive
--   win_end BIGINT: ns, inclusive
CREATE OR REPLACE TEMP TABLE _windows AS
WITH stretch AS (
    -- kernels after pass p's last anchor end and before pass p+1's first anchor, plus that anchor
    SELECT p.run_id, p.pass, k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns, p.last_end, false AS closing
    FROM _stream k
    ASOF JOIN _passes p ON k.run_id = p.run_id AND k.start_ns >= p.first_start
    JOIN _passes nxt ON nxt.run_id = p.run_id AND nxt.pass = p.pass + 1
    WHERE $window = 'full' AND k.run_id IN (SELECT unnest($run_ids))
      AND k.start_ns > p.last_end AND k.start_ns < nxt.first_start
    UNION ALL
    SELECT p.run_id, p.pass - 1, -1, p.first_start, p.first_start, prev.last_end, true
    FROM _passes p JOIN _passes prev ON prev.run_id = p.run_id AND prev.pass = p.pass - 1
    WHERE $window = 'full'
), gaps AS (
    SELECT *, start_ns - greatest(last_end, coalesce(max(end_ns) OVER (
        PARTITION BY run_id, pass ORDER BY start_ns, closing, seq
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), last_end)) AS gap_ns
    FROM stretch
), gap_split AS (
    -- split_ns: the first start that belongs to pass + 1
    SELECT run_id, pass + 1 AS pass, arg_min(start_ns, (-gap_ns, start_ns, closing, seq)) AS split_ns
    FROM gaps GROUP BY ALL
), step_starts AS (
    -- where steps start on the device: the first kernel of each Step Id, the GPU-side ProfilerStep#N range
    SELECT run_id, min(start_ns) AS start_ns FROM _stream
    WHERE $window = 'full' AND run_id IN (SELECT unnest($run_ids)) AND step_id IS NOT NULL GROUP BY run_id, step_id
    UNION ALL
    SELECT run_id, start_ns FROM host_events
    WHERE $window = 'full' AND run_id IN (SELECT unnest($run_ids)) AND cat = 'gpu_user_annotation'
      AND regexp_matches(name, '^ProfilerStep#\d+$')
), step_split AS (
    -- two passes of different steps: the later step's start, where it lies between them
    SELECT p.run_id, p.pass, max(ss.start_ns) AS split_ns
    FROM _passes p
    JOIN _passes prev ON prev.run_id = p.run_id AND prev.pass = p.pass - 1
    JOIN _pass_info i ON i.run_id = p.run_id AND i.pass = p.pass
    JOIN _pass_info ip ON ip.run_id = p.run_id AND ip.pass = p.pass - 1
    JOIN step_starts ss ON ss.run_id = p.run_id AND ss.start_ns > prev.last_end AND ss.start_ns <= p.first_start
    WHERE i.step IS DISTINCT FROM ip.step
    GROUP BY ALL
), split AS (
    SELECT g.run_id, g.pass, coalesce(t.split_ns, g.split_ns) AS split_ns
    FROM gap_split g LEFT JOIN step_split t USING (run_id, pass)
), bounds AS (
    SELECT run_id, min(start_ns) AS run_start, max(start_ns) AS run_end
    FROM _stream WHERE run_id IN (SELECT unnest($run_ids)) AND $window = 'full' GROUP BY run_id
)
SELECT p.run_id, p.pass,
    CASE WHEN $window = 'strict' THEN p.first_start
         ELSE coalesce(s.split_ns, least(b.run_start, p.first_start)) END AS win_start,
    CASE WHEN $window = 'strict' THEN p.last_end
         ELSE coalesce(s_next.split_ns - 1, greatest(b.run_end, p.last_end)) END AS win_end
FROM _passes p
LEFT JOIN split s ON s.run_id = p.run_id AND s.pass = p.pass
LEFT JOIN split s_next ON s_next.run_id = p.run_id AND s_next.pass = p.pass + 1
LEFT JOIN bounds b ON b.run_id = p.run_id;
