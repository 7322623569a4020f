-- Report `critical-path`: the window of each run whose path is walked, and the node the walk starts from.
-- Without a step: the run's whole trace, from its first node's start to its last node's end.
-- With $step N: the step's nodes are the host nodes that start inside its ProfilerStep#N annotation
-- (torch.profiler's prof.step(); not its GPU-side copy) and the device activities launched inside it,
-- or, in a kernel_details.csv run, those of Step Id N. The window runs from the annotation's start (the
-- step's first activity's, without one) to the end of the step's last node: the device work a step
-- launched belongs to it even when it ends after the host has moved on. With $mark, instance $instance of
-- the host annotation named $mark (host_events, in (start, seq) order; not a gpu_user_annotation copy) is
-- the window's annotation instead, alike.
-- The walk starts from the node that ends last; on a tie the device one, then the later id.
-- Inputs: _cp_nodes (critical_path_nodes.sql), kernels, host_events, _cp_offsets, _assigned.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $step BIGINT: the step; NULL: the whole trace
--   $job BOOLEAN: one window over all the runs (report critical-path --job)
--   $pass BIGINT: a pass instead of a step: its device activities (_assigned), from the first one's start to
--     the last one's end (report layers' wall); NULL: the step or the whole trace
--   $layer BIGINT: with $pass, that layer of it only
--   $mark VARCHAR: a host annotation's name (report critical-path --annotation); NULL: none
--   $instance BIGINT: with $mark, which of its instances, from 0 in time order
-- Output: TEMP _cp_members, the nodes of each window:
--   run_id INTEGER: the run
--   id BIGINT: the node (_cp_nodes.id)
--   mark_s BIGINT: the step's (or $mark's) annotation start; NULL without either
--   start_ns BIGINT: the node's start
--   end_ns BIGINT: its end
--   side VARCHAR: device | host
-- Output: rows, one per run with a window (none for a run without nodes, or without the step); with $job one
--   row over every run's window, on the job's clock (_cp_offsets):
--   run_id INTEGER: the run; NULL with $job
--   step BIGINT: the step; NULL: the whole trace
--   start_ns BIGINT: the window's start
--   end_ns BIGINT: its end
--   last BIGINT: the node the walk starts from (_cp_nodes.id)
CREATE OR REPLACE TEMP TABLE _cp_members AS
WITH marks AS (
    SELECT run_id, min(start_ns) AS s, max(start_ns + dur_ns) AS e
    FROM host_events
    WHERE run_id IN (SELECT unnest($run_ids)) AND $step IS NOT NULL AND starts_with(name, 'ProfilerStep#')
      AND name = 'ProfilerStep#' || CAST($step AS VARCHAR) AND cat IS DISTINCT FROM 'gpu_user_annotation'
    GROUP BY run_id
    UNION ALL
    SELECT run_id, start_ns, start_ns + dur_ns
    FROM (SELECT run_id, start_ns, dur_ns, row_number() OVER (PARTITION BY run_id ORDER BY start_ns, seq) - 1 AS k
          FROM host_events
          WHERE run_id IN (SELECT unnest($run_ids)) AND $mark IS NOT NULL AND name = $mark
            AND cat IS DISTINCT FROM 'gpu_user_annotation')
    WHERE k = $instance
), member AS (
    SELECT n.*, m.s AS mark_s
    FROM _cp_nodes n LEFT JOIN marks m USING (run_id) LEFT JOIN _cp_nodes l ON l.id = n.launch
    LEFT JOIN kernels k ON n.side = 'device' AND $step IS NOT NULL AND k.run_id = n.run_id AND k.seq = n.ref_seq
    WHERE $pass IS NULL AND ($step IS NULL AND $mark IS NULL
       OR (n.side = 'host' AND n.start_ns >= m.s AND n.start_ns < m.e)
       OR (n.side = 'device' AND (l.start_ns >= m.s AND l.start_ns < m.e
           OR k.step_id = $step)))
    UNION ALL
    -- a pass or a layer: its device activities (_assigned), from the first one's start
    SELECT n.*, NULL AS mark_s
    FROM _cp_nodes n JOIN _assigned a ON a.run_id = n.run_id AND a.seq = n.ref_seq
    WHERE $pass IS NOT NULL AND n.side = 'device' AND a.pass = $pass AND ($layer IS NULL OR a.layer = $layer)
)
SELECT run_id, id, mark_s, start_ns, end_ns, side FROM member;
SELECT CASE WHEN NOT $job THEN m.run_id END AS run_id, $step::BIGINT AS step,
    coalesce(min(m.mark_s + coalesce(o.off_ns, 0)), min(m.start_ns + coalesce(o.off_ns, 0))) AS start_ns,
    max(m.end_ns + coalesce(o.off_ns, 0)) AS end_ns,
    arg_max(m.id, (m.end_ns + coalesce(o.off_ns, 0), m.side = 'device', m.id)) AS last
FROM _cp_members m LEFT JOIN _cp_offsets o USING (run_id)
WHERE m.run_id IN (SELECT unnest($run_ids))
GROUP BY CASE WHEN NOT $job THEN m.run_id END
ORDER BY 1;
