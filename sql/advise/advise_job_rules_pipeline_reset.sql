-- Advise rule pipeline-bubble: an earlier report's pipeline rows are not these runs', and no stage waits yet
-- (advise_pipeline_waits.sql fills them for pipeline stages).
-- Inputs: _pl_rows.
-- Parameters: none.
-- Output: TEMP _pl_rows dropped when it exists.
-- Output: TEMP _adv_pp_waits, empty:
--   run_id INTEGER: the run
--   step BIGINT: the step
--   s BIGINT: the wait's start, ns
--   e BIGINT: its end
DROP TABLE IF EXISTS _pl_rows;
CREATE OR REPLACE TEMP TABLE _adv_pp_waits (run_id INTEGER, step BIGINT, s BIGINT, e BIGINT);
