-- Advise rule slow-rank: the table of the time report blame says each candidate rank made the others wait,
-- filled by advise_job_rules_waits_add.sql.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _adv_waits, empty:
--   run_id INTEGER: the candidate rank's run
--   waited_ns BIGINT: the time the other ranks waited for it
CREATE OR REPLACE TEMP TABLE _adv_waits (run_id INTEGER, waited_ns BIGINT);
