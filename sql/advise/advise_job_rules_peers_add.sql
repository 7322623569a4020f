-- Advise rule exposed-comm: one job's arrivals (collectives_peers.sql) added to those of the others.
-- Inputs: _coll_peers (collectives_peers.sql), _adv_peers (advise_job_rules_peers.sql).
-- Parameters: none.
-- Output: TEMP _adv_peers, the rows of _coll_peers added.
INSERT INTO _adv_peers SELECT * FROM _coll_peers;
