-- Report `launches`: the idle gaps of each unit (run, step, pass or layer of _bd_act, the kernels and
-- communication ops report breakdown counts) and why the device sat idle in each. The unit's busy time
-- is the union of its activities' intervals, as breakdown_union.sql makes it: sorted by start, each
-- activity that starts after the running maximum end of the ones before it (prev_end) opens a new busy
-- island, and [prev_end, start) is a gap. The gaps of a unit add up to span - union = breakdown's free.
-- The activity that opens the island ends the gap: of the activities starting at that instant, the one
-- whose launch call started first (NULL launches last, then seq). With L its launch call's start:
--   host-bound: [prev_end, min(L, start)), the part of the gap before the launch call started (the
--     device had nothing to run because the host had not issued the next kernel yet); 0 when L <= prev_end;
--   other: the rest of the gap, [max(L, prev_end), start): the launch had been issued and the device still
--     idled (a stream or event dependency, a synchronisation, the launch's own latency);
--   unknown: the whole gap when the activity has no launch call in the trace.
-- Inputs: _bd_act (breakdown_activity.sql, breakdown_steps.sql or breakdown_activity_layers.sql),
--   _la_calls (launches_calls.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs (runs of _bd_act without launches are left out)
-- Output: TEMP _la_act, one row per activity of _bd_act of the runs:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: its step (NULL: not by step)
--   pass BIGINT: its pass (NULL: not by pass or layer)
--   layer BIGINT: its layer (NULL: not by layer, or the prologue or epilogue)
--   unit VARCHAR: by layer: prologue | layer | epilogue; else NULL
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   call_seq BIGINT: its launch call (host_events.seq); NULL: none in the trace
--   call_ns BIGINT: the launch call's start
--   call_dur_ns BIGINT: the launch call's duration
--   gap_ns BIGINT: the gap this activity ends (0: it ends none)
--   host_bound_ns BIGINT: the gap's host-bound part
--   other_ns BIGINT: the gap's other part
--   unknown_ns BIGINT: the gap, when this activity has no launch call
CREATE OR REPLACE TEMP TABLE _la_act AS
WITH act AS (
    SELECT a.run_id, a.seq, a.step, a.pass, a.layer, a.unit, a.s, a.e, c.call_seq, c.call_ns, c.call_dur_ns
    FROM _bd_act a LEFT JOIN _la_calls c USING (run_id, seq)
    WHERE a.run_id IN (SELECT unnest($run_ids))
), ordered AS (
    SELECT *, max(e) OVER (PARTITION BY run_id, step, pass, layer, unit ORDER BY s, call_ns NULLS LAST, seq
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM act
), gaps AS (
    SELECT *, CASE WHEN s > prev_end THEN s - prev_end ELSE 0 END AS gap_ns,
        CASE WHEN s > prev_end AND call_ns IS NOT NULL THEN least(greatest(call_ns - prev_end, 0), s - prev_end)
             ELSE 0 END AS hb_ns
    FROM ordered
)
SELECT run_id, seq, step, pass, layer, unit, s, e, call_seq, call_ns, call_dur_ns, gap_ns::BIGINT AS gap_ns,
    hb_ns::BIGINT AS host_bound_ns,
    (CASE WHEN call_ns IS NOT NULL THEN gap_ns - hb_ns ELSE 0 END)::BIGINT AS other_ns,
    (CASE WHEN call_ns IS NULL THEN gap_ns ELSE 0 END)::BIGINT AS unknown_ns
FROM gaps;
