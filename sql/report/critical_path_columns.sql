-- Report `critical-path`: the nodes the walk follows (engine/reports/critical_path.py, walk), as columns: a
-- run's, or with --job every run's, in id order (ids are dense within a run, and over all of them).
-- Inputs: _cp_nodes (critical_path_bind.sql).
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
SELECT id, side, kind, start_ns + off_ns AS start_ns, pred, release_ns + off_ns AS release_ns, edge
FROM _cp_nodes
WHERE $run_id IS NULL OR run_id = $run_id
ORDER BY id;
