-- Report pipeline: an earlier report's passes are not these runs' (pipeline_passes.sql adds each phase's).
-- Inputs: _pl_passes.
-- Parameters: none.
-- Output: TEMP _pl_passes dropped when it exists.
DROP TABLE IF EXISTS _pl_passes;
