-- Report `what-if --job`: the communication ops matched across a job's ranks (collectives_match.sql), each
-- with its instance, so that the replay can end every member when the last one has arrived
-- (engine/reports/replay.py, Graph.load_job).
-- Inputs: _coll_match, _cp_nodes.
-- Parameters: none.
-- Output: rows, one per member node of a consistent instance of two members or more:
--   id BIGINT: the node (_cp_nodes.id)
--   instance BIGINT: the instance, dense from 0
SELECT n.id, dense_rank() OVER (ORDER BY m.grp, m.mkey) - 1 AS instance
FROM _coll_match m
JOIN _cp_nodes n ON n.run_id = m.run_id AND n.ref_seq = m.kseq AND n.side = 'device'
WHERE m.consistent AND m.members >= 2 AND m.kseq IS NOT NULL
ORDER BY instance, n.id;
