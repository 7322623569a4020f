-- Advise rule slow-rank: one candidate's waited time (report blame's), executed once per candidate.
-- Inputs: _adv_waits (advise_job_rules_waits.sql).
-- Parameters:
--   $run_id INTEGER: the candidate rank's run
--   $waited_ns BIGINT: the time the other ranks waited for it
-- Output: TEMP _adv_waits, a row added.
INSERT INTO _adv_waits VALUES ($run_id, $waited_ns);
