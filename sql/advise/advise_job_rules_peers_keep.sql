-- Advise rule exposed-comm: every job's arrivals as the one table advise_comm_wait.sql reads.
-- Inputs: _adv_peers (advise_job_rules_peers.sql).
-- Parameters: none.
-- Output: TEMP _coll_peers, a copy of _adv_peers (run_id, kseq, peer_ns).
CREATE OR REPLACE TEMP TABLE _coll_peers AS SELECT * FROM _adv_peers;
