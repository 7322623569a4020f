-- Per replay run, what the match of its graph replays to its capture's graphs found, for the notes.
-- Inputs: _graph_replays (graph_capture_match.sql), runs.
-- Parameters: none.
-- Output: rows, one per replay run, in run order:
--   run_id INTEGER: the replay run
--   graphs BIGINT: its graph replays
--   matched BIGINT: those matched to a captured graph
--   kernels HUGEINT: the kernels of the matched replays
--   set_aside BIGINT: the most launches a matched graph set aside
--   unnamed BIGINT: matched replays whose graph's launches carry no kernel names
--   captures VARCHAR[]: the names of its capture runs, in run order
SELECT g.run_id, count(*) AS graphs, count(*) FILTER (WHERE matched) AS matched,
    coalesce(sum(kernels) FILTER (WHERE matched), 0) AS kernels,
    coalesce(max(set_aside) FILTER (WHERE matched), 0) AS set_aside,
    count(*) FILTER (WHERE matched AND NOT named) AS unnamed,
    (SELECT list(c.name ORDER BY c.run_id) FROM runs r JOIN runs c ON c.tags['capture_of'] = r.tags['capture']
     AND c.run_id <> r.run_id WHERE r.run_id = g.run_id) AS captures
FROM _graph_replays g GROUP BY g.run_id ORDER BY g.run_id;
