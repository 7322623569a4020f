-- Report critical-path: the table of each run's clock offset on a job's clock (--job; empty for a run's own
-- path), filled by critical_path_offsets_add.sql.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _cp_offsets, empty:
--   run_id INTEGER: the run
--   off_ns BIGINT: ns added to the run's times to put them on the job's clock
CREATE OR REPLACE TEMP TABLE _cp_offsets (run_id INTEGER, off_ns BIGINT);
