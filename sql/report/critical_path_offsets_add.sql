-- Report critical-path --job: one run's clock offset (the job's ranks aligned on their collectives,
-- engine/jobs/align.py), executed once per run.
-- Inputs: _cp_offsets (critical_path_offsets.sql).
-- Parameters:
--   $run_id INTEGER: the run
--   $off_ns BIGINT: ns added to its times
-- Output: TEMP _cp_offsets, a row added.
INSERT INTO _cp_offsets VALUES ($run_id, $off_ns);
