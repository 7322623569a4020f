-- How many of each replay's graph replays and kernels matched a captured graph: the line of a paired replay.
-- Inputs: TEMP _graph_replays (graph_capture_match.sql).
-- Parameters: none.
-- Output: rows, one per replay run: its run_id (INTEGER), its graph replays (BIGINT) and those matched (BIGINT),
--   its replayed kernels (HUGEINT) and those matched (HUGEINT), the most set aside of a matched replay.
SELECT run_id, count(*), count(*) FILTER (WHERE matched), sum(kernels),
coalesce(sum(kernels) FILTER (WHERE matched), 0), coalesce(max(set_aside) FILTER (WHERE matched), 0)
FROM _graph_replays GROUP BY run_id;
