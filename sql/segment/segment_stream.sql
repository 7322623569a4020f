-- The kernels a segmentation works on: every kernel of a run without phases, and of a training run
-- (kernel_phases.sql gave it rows) the kernels of the phase being segmented. Forward and backward passes
-- are found, windowed and split into layers each in its own stream, so that a schedule that interleaves
-- them (DualPipe, 1F1B with overlap) never puts a backward kernel in a forward layer; optimizer kernels
-- are in neither stream.
-- The view is defined over TEMP tables that tracedb.engine.segmentation.segment fills for every bound set of runs, so
-- the filters of its readers (run, time range) still reach the scan of kernels.
-- Inputs: kernels, _phase (kernel_phases.sql).
-- Parameters:
--   $phase VARCHAR: forward | backward, the phase being segmented
-- Output: TEMP _stream_pick(run_id INTEGER, seq BIGINT): the kernels of the phase, in training runs
-- Output: TEMP _stream_runs(run_id INTEGER): the training runs
-- Output: TEMP VIEW _stream, the kernels of the stream, with every column of kernels
CREATE OR REPLACE TEMP TABLE _stream_pick AS SELECT run_id, seq FROM _phase WHERE phase = $phase;
CREATE OR REPLACE TEMP TABLE _stream_runs AS SELECT DISTINCT run_id FROM _phase;
CREATE OR REPLACE TEMP VIEW _stream AS
SELECT k.* FROM kernels k
WHERE k.run_id NOT IN (SELECT run_id FROM _stream_runs)
   OR (k.run_id, k.seq) IN (SELECT run_id, seq FROM _stream_pick);
