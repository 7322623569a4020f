-- Report `what-if` and `critical-path --by slack`: one run's dependency graph for the replay
-- (engine/reports/replay.py): its nodes with the category an edit by category reads, and every candidate.
-- Inputs: _cp_nodes, _cp_cands (critical_path_nodes.sql, critical_path_bind.sql), kernels, _cats.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: TEMP _rp_cands, the run's candidates:
--   id BIGINT: the node
--   pred BIGINT: the candidate node
--   release_ns BIGINT: when it released the node
--   edge VARCHAR: stream | launch | event | thread | sync | collective
-- Output: rows, one per node of the run, in id order:
--   id BIGINT: the node
--   kind VARCHAR: kernel | comm | memcpy | memset | launch | sync
--   name VARCHAR: the kernel's or the call's name
--   start_ns BIGINT: start, ns
--   end_ns BIGINT: end, ns
--   category VARCHAR: the profile's category of a kernel (communication for a communication op); NULL on the host
CREATE OR REPLACE TEMP TABLE _rp_cands AS
SELECT c.id, c.pred, c.release_ns, c.edge FROM _cp_cands c JOIN _cp_nodes n USING (id) WHERE n.run_id = $run_id;
SELECT n.id, n.kind, n.name, n.start_ns, n.end_ns,
    CASE WHEN n.kind = 'comm' THEN 'communication' ELSE c.category END AS category
FROM _cp_nodes n
LEFT JOIN kernels k ON n.side = 'device' AND k.run_id = n.run_id AND k.seq = n.ref_seq
LEFT JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
WHERE n.run_id = $run_id
ORDER BY n.id;
