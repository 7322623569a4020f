-- Report critical-path of a job's rank: how many of its collectives waited for a peer (the last other member
-- arrived after the op began), for the note on comm_wait.
-- Inputs: _cp_peers (critical_path_peers.sql), _cp_nodes (critical_path_nodes.sql).
-- Parameters: none.
-- Output: rows, exactly one:
--   waited BIGINT: the collectives whose last peer arrived after their start
SELECT count(*) AS waited FROM _cp_peers p JOIN _cp_nodes n USING (id)
WHERE p.peer_ns > n.start_ns;
