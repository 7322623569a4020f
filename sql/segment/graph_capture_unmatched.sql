-- The first graph replays of one run that match no captured graph, with what tells why.
-- Inputs: _graph_replays (graph_capture_match.sql), runs.
-- Parameters:
--   $run_id INTEGER: the replay run
--   $shown INTEGER: how many replays at most
-- Output: one row per unmatched replay, in launch order, at most $shown: at_ns (its launch, ns from the
--   trace's start), kernels (the kernels it ran), nearest (the launches of the captured graph nearest in
--   count; NULL: the capture holds none), differs (the kernel a captured graph of as many launches launched
--   another number of times), geometry (kernels whose grid or block differ from their launch's).
SELECT g.launch_ns - r.trace_start_ns AS at_ns, g.kernels, g.nearest, g.differs, g.geometry
FROM _graph_replays g JOIN runs r USING (run_id) WHERE g.run_id = $run_id AND NOT g.matched
ORDER BY g.launch_ns LIMIT $shown;
