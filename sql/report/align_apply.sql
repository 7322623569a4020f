-- The communication ops with their aligned times: each run's offset (engine/jobs/align.py: ns to add so that every
-- rank reads the reference rank's clock) added to its start and end.
-- Inputs: _coll_match (collectives_match.sql).
-- Parameters:
--   $offset_runs INTEGER[]: the runs
--   $offsets BIGINT[]: their offsets, same order
-- Output: TEMP _coll_aligned, one row per row of _coll_match, with its columns and these new columns:
--   offset_ns BIGINT: the run's offset
--   a_start BIGINT: start + offset
--   a_end BIGINT: end + offset
CREATE OR REPLACE TEMP TABLE _coll_aligned AS
SELECT m.*, o.offset_ns, m.start_ns + o.offset_ns AS a_start, m.end_ns + o.offset_ns AS a_end
FROM _coll_match m
JOIN (SELECT unnest($offset_runs::INTEGER[]) AS run_id, unnest($offsets::BIGINT[]) AS offset_ns) o USING (run_id);
