-- Report `critical-path` of a job's rank on its own (without --job): when each of its communication ops had
-- every other member of its instance in (collectives_peers.sql). Until then the op waited for its peers
-- (comm_wait on the path); after, it moved data (device_comm). With --job the path goes to the member that
-- arrived last instead (critical_path_collectives.sql).
-- Inputs: _coll_peers, _cp_nodes.
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
-- Output: TEMP _cp_peers, one row per communication op of the selected runs in such an instance:
--   id BIGINT: the node (_cp_nodes.id)
--   peer_ns BIGINT: the latest start of the instance's other members, on the node's own clock
CREATE OR REPLACE TEMP TABLE _cp_peers AS
SELECT n.id, p.peer_ns
FROM _coll_peers p
JOIN _cp_nodes n ON n.run_id = p.run_id AND n.ref_seq = p.kseq AND n.side = 'device'
WHERE p.run_id IN (SELECT unnest($run_ids));
