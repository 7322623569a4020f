-- A job's graph (report what-if --job, critical-path --job): each run's clock offset on the job's clock.
-- Inputs: _cp_offsets (critical_path_offsets.sql).
-- Parameters: none.
-- Output: rows, one per run with an offset:
--   run_id INTEGER: the run
--   off_ns BIGINT: ns added to its times
SELECT run_id, off_ns FROM _cp_offsets;
