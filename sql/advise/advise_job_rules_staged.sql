-- Advise rule pipeline-bubble: the runs that are pipeline stages with waits for the other stages, for a note.
-- Inputs: _adv_pp_waits (advise_pipeline_waits.sql).
-- Parameters: none.
-- Output: rows, one per such run, in run order:
--   run_id INTEGER: the run
SELECT DISTINCT run_id FROM _adv_pp_waits ORDER BY run_id;
