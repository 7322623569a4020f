-- Report `breakdown`: the interval arithmetic, per unit (run, step, pass, layer) of _bd_act. Unions of
-- intervals: of the computing activities, of the communication ones, of both (busy), and with the unit's
-- copies and fills of _bd_copy: of the copies, of the fills, of busy and copies, and of everything. Each is
-- made by sorting the unit's intervals by start and keeping the running maximum end of the earlier
-- ones (prev): an interval that starts after prev opens a new island, one that ends after prev extends
-- the current one. Either way it adds max(0, end - max(start, prev)) to the union, since everything
-- from its start to prev is covered already (the earlier intervals start no later than it does). The
-- union's length is the sum of those additions: one sort and one window for all seven unions (a
-- filtered running max per class; seven cost 0.037 s where the three of kernels and communication alone
-- cost 0.021 s, over the 43,915 kernels of the rocprofv3 MI350X trace), no island numbering. No interval
-- is clipped: an activity belongs to the unit its start lies in and counts whole, as the Ascend profiler
-- counts a task in its step.
-- Overlap follows: |computing AND communication| = |computing| + |communication| - |either|; the copy
-- time outside busy is |busy OR copies| - |busy|, the fill time outside both |everything| - |busy OR copies|.
-- A unit is made by its kernels and communication ops: copies and fills of a unit without any are left out,
-- and first_ns, last_ns, computing_ns, communication_ns and busy_ns are those of _bd_act alone.
-- Inputs: _bd_act (breakdown_activity.sql, breakdown_steps.sql or breakdown_activity_layers.sql), _bd_copy
--   (the same files).
-- Parameters: none.
-- Output: TEMP _bd_units, one row per unit:
--   run_id INTEGER: the run
--   step BIGINT: the step (NULL: not by step)
--   pass BIGINT: the pass (NULL: not by pass or layer)
--   layer BIGINT: the layer (NULL: not by layer, or the prologue or epilogue)
--   unit VARCHAR: by layer: prologue | layer | epilogue; else NULL
--   first_ns BIGINT: first start of its kernels and communication ops
--   last_ns BIGINT: last end of them
--   computing_ns BIGINT: length of the union of the computing intervals
--   communication_ns BIGINT: length of the union of the communication intervals
--   busy_ns BIGINT: length of the union of the computing and communication intervals
--   memcpy_ns BIGINT: length of the union of the memcpy intervals
--   memset_ns BIGINT: length of the union of the memset intervals
--   busy_memcpy_ns BIGINT: length of the union of the computing, communication and memcpy intervals
--   all_ns BIGINT: length of the union of every interval, memset included
--   first_all_ns BIGINT: first start of every activity of the unit, copies and fills included
--   last_all_ns BIGINT: last end of them
CREATE OR REPLACE TEMP TABLE _bd_units AS
WITH acts AS (
    SELECT run_id, step, pass, layer, unit, s, e, CASE WHEN is_comm THEN 'comm' ELSE 'compute' END AS class
    FROM _bd_act
    UNION ALL
    SELECT run_id, step, pass, layer, unit, s, e, kind FROM _bd_copy
), ordered AS (
    SELECT run_id, step, pass, layer, unit, s, e, class,
        max(e) FILTER (WHERE class = 'compute') OVER w AS prev_compute,
        max(e) FILTER (WHERE class = 'comm') OVER w AS prev_comm,
        max(e) FILTER (WHERE class IN ('compute', 'comm')) OVER w AS prev_busy,
        max(e) FILTER (WHERE class = 'memcpy') OVER w AS prev_memcpy,
        max(e) FILTER (WHERE class = 'memset') OVER w AS prev_memset,
        max(e) FILTER (WHERE class <> 'memset') OVER w AS prev_busy_memcpy,
        max(e) OVER w AS prev_all
    FROM acts
    WINDOW w AS (PARTITION BY run_id, step, pass, layer, unit ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT run_id, step, pass, layer, unit,
    min(s) FILTER (WHERE class IN ('compute', 'comm')) AS first_ns,
    max(e) FILTER (WHERE class IN ('compute', 'comm')) AS last_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_compute, s)))) FILTER (WHERE class = 'compute'), 0)::BIGINT
        AS computing_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_comm, s)))) FILTER (WHERE class = 'comm'), 0)::BIGINT
        AS communication_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_busy, s)))) FILTER (WHERE class IN ('compute', 'comm')),
        0)::BIGINT AS busy_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_memcpy, s)))) FILTER (WHERE class = 'memcpy'), 0)::BIGINT
        AS memcpy_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_memset, s)))) FILTER (WHERE class = 'memset'), 0)::BIGINT
        AS memset_ns,
    coalesce(sum(greatest(0, e - greatest(s, coalesce(prev_busy_memcpy, s)))) FILTER (WHERE class <> 'memset'),
        0)::BIGINT AS busy_memcpy_ns,
    sum(greatest(0, e - greatest(s, coalesce(prev_all, s))))::BIGINT AS all_ns,
    min(s) AS first_all_ns, max(e) AS last_all_ns
FROM ordered
GROUP BY run_id, step, pass, layer, unit
HAVING count(*) FILTER (WHERE class IN ('compute', 'comm')) > 0;
