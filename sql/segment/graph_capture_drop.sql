-- The graph replays' match dropped once its notes are written.
-- Inputs: _graph_replays (graph_capture_match.sql).
-- Parameters: none.
-- Output: TEMP _graph_replays dropped.
DROP TABLE _graph_replays;
