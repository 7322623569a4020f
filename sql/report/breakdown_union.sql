-- Report `breakdown`: the interval arithmetic, per unit (run, step, pass, layer) of _bd_act. Three
-- unions of intervals: of the computing activities, of the communication ones, and of all. Each is
-- made by sorting the unit's intervals by start and keeping the running maximum end of the earlier
-- ones (prev): an interval that starts after prev opens a new island, one that ends after prev extends
-- the current one. Either way it adds max(0, end - max(start, prev)) to the union, since everything
-- from its start to prev is covered already (the earlier intervals start no later than it does). The
-- union's length is the sum of those additions: one sort and one window for all three unions (a
-- filtered running max per class), no island numbering. No interval is clipped: an activity belongs
-- to the unit its start lies in and counts whole, as the Ascend profiler counts a task in its step.
-- Overlap follows: |computing AND communication| = |computing| + |communication| - |either|.
-- Inputs: _bd_act (breakdown_activity.sql, breakdown_steps.sql or breakdown_activity_layers.sql).
-- Parameters: none.
-- Output: TEMP _bd_units, one row per unit:
--   run_id INTEGER: the run
--   step BIGINT: the step (NULL: not by step)
--   pass BIGINT: the pass (NULL: not by pass or layer)
--   layer BIGINT: the layer (NULL: not by layer, or the prologue or epilogue)
--   unit VARCHAR: by layer: prologue | layer | epilogue; else NULL
--   first_ns BIGINT: first start
--   last_ns BIGINT: last end
--   computing_ns BIGINT: length of the union of the computing intervals
--   communication_ns BIGINT: length of the union of the communication intervals
--   busy_ns BIGINT: length of the union of all intervals
CREATE OR REPLACE TEMP TABLE _bd_units AS
WITH ordered AS (
    SELECT run_id, step, pass, layer, unit, s, e, is_comm,
        max(e) OVER w AS prev_any,
        max(e) FILTER (WHERE is_comm) OVER w AS prev_comm,
        max(e) FILTER (WHERE NOT is_comm) OVER w AS prev_compute
    FROM _bd_act
    WINDOW w AS (PARTITION BY run_id, step, pass, layer, unit ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT run_id, step, pass, layer, unit, min(s) AS first_ns, max(e) AS last_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_compute, s)))) FILTER (WHERE NOT is_comm), 0)::BIGINT
        AS computing_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_comm, s)))) FILTER (WHERE is_comm), 0)::BIGINT
        AS communication_ns,
    sum(greatest(0, e - greatest(s, coalesce(prev_any, s))))::BIGINT AS busy_ns
FROM ordered
GROUP BY run_id, step, pass, layer, unit;
