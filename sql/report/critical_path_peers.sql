-- Report `critical-path` of a job's rank on its own (without --job): when each of its communication ops had
-- every other member of its instance in. Until then the op waited for its peers (comm_wait on the path);
-- after, it moved data (device_comm). With --job the path goes to the member that arrived last instead
-- (critical_path_collectives.sql).
-- An instance counts when it is matched across the job's ranks as clock alignment uses it (_coll_aligned,
-- collectives_match.sql and align_apply.sql: alignable, one op, one size, each rank once, two members or
-- more), and only its members whose clocks the alignment reached.
-- Inputs: _coll_aligned, _cp_nodes.
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
--   $on_clock INTEGER[]: the runs on the aligned clock (engine/jobs/align.py)
-- Output: TEMP _cp_peers, one row per communication op of the selected runs in such an instance:
--   id BIGINT: the node (_cp_nodes.id)
--   peer_ns BIGINT: the latest start of the instance's other members, on the node's own clock
CREATE OR REPLACE TEMP TABLE _cp_peers AS
WITH mine AS (
    SELECT n.id, a.grp, a.mkey, a.run_id, a.offset_ns
    FROM _coll_aligned a
    JOIN _cp_nodes n ON n.run_id = a.run_id AND n.ref_seq = a.kseq AND n.side = 'device'
    WHERE a.alignable AND a.kseq IS NOT NULL AND a.run_id IN (SELECT unnest($run_ids))
      AND a.run_id IN (SELECT unnest($on_clock))
)
SELECT m.id, max(o.a_start) - any_value(m.offset_ns) AS peer_ns
FROM mine m JOIN _coll_aligned o ON o.grp = m.grp AND o.mkey = m.mkey AND o.run_id <> m.run_id
WHERE o.run_id IN (SELECT unnest($on_clock))
GROUP BY m.id;
