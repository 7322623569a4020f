-- Advise rule exposed-comm: the table of when each communication op's last other member arrived, filled job
-- by job by advise_job_rules_peers_add.sql.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _adv_peers, empty:
--   run_id INTEGER: the run
--   kseq BIGINT: the communication op
--   peer_ns BIGINT: when the last other member of its instance arrived, on the run's clock
CREATE OR REPLACE TEMP TABLE _adv_peers (run_id INTEGER, kseq BIGINT, peer_ns BIGINT);
