-- Report `critical-path --by slack`: how much later each kernel's activities could end before the window's
-- end moves, per kernel name: an activity on the path has none; one off it, the least of what the work
-- that waits for it allows (engine/reports/replay.py, Graph.slack); with --job, in the job's graph, where a
-- collective ends when its last member has arrived, so an early rank's work has the slack of its wait.
-- Inputs: _cp_slack (run_id, node, slack_ns), _cp_nodes, _cp_path (critical_path_segments.sql), runs,
--   kernel_names.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run and kernel name, the least slack first (then the most time):
--   run VARCHAR: the run's name
--   rank INTEGER: its rank; NULL when unknown
--   step BIGINT: the window's step; NULL: the whole trace
--   kernel VARCHAR: the kernel's short name
--   name VARCHAR: its full name (terminal and Markdown tables show kernel instead, told apart)
--   activities BIGINT: its activities in the window
--   on_path BIGINT: those on the critical path
--   sum_us DECIMAL(38,3): their time
--   min_slack_us DECIMAL(23,3): the least slack of any of them (0: on the path); NULL when nothing in the
--     window waits for them
--   p50_slack_us DECIMAL(23,3): the median slack (nearest rank)
WITH on_path AS (
    SELECT DISTINCT p.run_id, w.node
    FROM _cp_walk w JOIN _cp_nodes n ON n.id = w.node
    JOIN _cp_path p ON p.path = w.path AND p.start_ns = w.start_ns AND p.end_ns = w.end_ns
    WHERE n.side = 'device' AND w.category IN ('device_compute', 'device_comm', 'device_memcpy')
), steps AS (
    -- every window of a report has the same step (with --job, one window over the runs)
    SELECT any_value(step) AS step FROM _cp_walk
)
SELECT r.name AS run, r.rank, st.step, coalesce(kn.short_name, n.name) AS kernel, n.name,
    count(*) AS activities, count(o.node) AS on_path,
    CAST(sum(n.end_ns - n.start_ns) / 1000 AS DECIMAL(38,3)) AS sum_us,
    CAST(min(s.slack_ns) / 1000 AS DECIMAL(23,3)) AS min_slack_us,
    CAST(quantile_disc(s.slack_ns, 0.5) / 1000 AS DECIMAL(23,3)) AS p50_slack_us
FROM _cp_slack s JOIN _cp_nodes n ON n.id = s.node JOIN runs r ON r.run_id = s.run_id
CROSS JOIN steps st
LEFT JOIN on_path o ON o.run_id = s.run_id AND o.node = s.node
LEFT JOIN kernel_names kn ON kn.name = n.name
WHERE s.run_id IN (SELECT unnest($run_ids))
GROUP BY r.name, s.run_id, r.rank, st.step, coalesce(kn.short_name, n.name), n.name
ORDER BY s.run_id, min(s.slack_ns) NULLS LAST, sum(n.end_ns - n.start_ns) DESC, n.name;
