-- Advise: a pipeline stage's sends and receives left out of report breakdown's activities (_bd_act) before its
-- units are summed, so that rule exposed-comm does not count them: they are the stage's waits for the other
-- stages, rule pipeline-bubble's (advise_pipeline_waits.sql).
-- Inputs: _bd_act (breakdown_activity.sql), _adv_pp_waits (the pipeline-stage runs), kernels, _p2p_names (the
--   pipeline send/receive names: tracedb.engine.segmentation.phases.find_phases).
-- Parameters: none.
-- Output: TEMP _bd_act, the rows of the pipeline-stage runs' sends and receives deleted.
DELETE FROM _bd_act
WHERE run_id IN (SELECT run_id FROM _adv_pp_waits)
  AND (run_id, seq) IN (SELECT k.run_id, k.seq FROM kernels k
                        WHERE k.run_id IN (SELECT run_id FROM _adv_pp_waits)
                          AND k.name IN (SELECT name FROM _p2p_names));
