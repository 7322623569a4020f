-- The critical path of a run's whole trace for the Perfetto export's track, in time order.
-- Inputs: _cp_path (critical_path_segments.sql).
-- Parameters: none.
-- Output: rows, one per segment of the path, in position order: start_ns, end_ns, category, segment, kernel
--   and api of _cp_path.
SELECT start_ns, end_ns, category, segment, kernel, api FROM _cp_path ORDER BY pos;
