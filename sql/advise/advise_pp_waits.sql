-- Advise: whether any run is a pipeline stage with waits for the other stages (their sends and receives are
-- then rule pipeline-bubble's, advise_pipeline_p2p.sql).
-- Inputs: _adv_pp_waits (advise_job_rules_pipeline_reset.sql, advise_pipeline_waits.sql).
-- Parameters: none.
-- Output: rows, exactly one:
--   waits BIGINT: the rows of _adv_pp_waits
SELECT count(*) AS waits FROM _adv_pp_waits;
