-- The graph replays' match and launches dropped once the lines of paired replays are written.
-- Inputs: TEMP _graph_replays, _graph_launches (graph_capture_match.sql).
-- Parameters: none.
-- Output: TEMP _graph_replays and _graph_launches dropped (when they exist).
DROP TABLE IF EXISTS _graph_replays;
DROP TABLE IF EXISTS _graph_launches;
