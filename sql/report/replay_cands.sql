-- Report what-if and critical-path --by slack: the candidates of the run replay_nodes.sql just read.
-- Inputs: _rp_cands (replay_nodes.sql).
-- Parameters: none.
-- Output: rows, one per candidate edge:
--   id BIGINT: the node
--   pred BIGINT: the candidate node
--   release_ns BIGINT: when it released the node
--   edge VARCHAR: stream | launch | event | thread | sync | collective
SELECT id, pred, release_ns, edge FROM _rp_cands;
