-- Report `critical-path`: the nodes the walk follows (engine/reports/critical_path.py, walk), as columns: a
-- run's, or with --job every run's, in id order (ids are dense within a run, and over all of them).
-- Inputs: _cp_nodes (critical_path_bind.sql), _cp_peers (critical_path_peers.sql; empty outside a job's rank).
-- Parameters:
--   $run_id INTEGER: the run; NULL: every run (--job)
-- Output: rows, one per node:
--   id BIGINT: the node
--   side VARCHAR: device | host
--   kind VARCHAR: kernel | comm | memcpy | memset | launch | sync
--   start_ns BIGINT: its start, on the job's clock (off_ns added: 0 for a run's own path)
--   pred BIGINT: its binding predecessor
--   release_ns BIGINT: when that released it, on the job's clock
--   edge VARCHAR: stream | launch | event | thread | sync | collective
--   peer_ns BIGINT: a communication op of a job's rank: when the last other member of its instance arrived,
--     on the job's clock; NULL otherwise
SELECT id, side, kind, start_ns + off_ns AS start_ns, pred, release_ns + off_ns AS release_ns, edge,
    p.peer_ns + off_ns AS peer_ns
FROM _cp_nodes LEFT JOIN _cp_peers p USING (id)
WHERE $run_id IS NULL OR run_id = $run_id
ORDER BY id;
