-- When each communication op of a job's rank had every other member of its instance in: the latest start of
-- the instance's other members, read on the op's own clock. Until then the op waited for its peers; after,
-- it moved data. Report critical-path splits an op's time there (comm_wait, device_comm); advise's rule
-- exposed-comm splits the exposed communication the same way.
-- An instance counts when it is matched across the job's ranks as clock alignment uses it (_coll_aligned,
-- collectives_match.sql and align_apply.sql: alignable, one op, one size, each rank once, two members or
-- more), and only its members whose clocks the alignment reached.
-- Inputs: _coll_aligned.
-- Parameters:
--   $on_clock INTEGER[]: the runs on the aligned clock (engine/jobs/align.py)
-- Output: TEMP _coll_peers, one row per communication op of a run on the clock in such an instance:
--   run_id INTEGER: the run
--   kseq BIGINT: the op's kernel row (kernels.seq)
--   peer_ns BIGINT: the latest start of the instance's other members, on the run's own clock
CREATE OR REPLACE TEMP TABLE _coll_peers AS
SELECT m.run_id, m.kseq, max(o.a_start) - any_value(m.offset_ns) AS peer_ns
FROM _coll_aligned m JOIN _coll_aligned o ON o.grp = m.grp AND o.mkey = m.mkey AND o.run_id <> m.run_id
WHERE m.alignable AND m.kseq IS NOT NULL
  AND m.run_id IN (SELECT unnest($on_clock)) AND o.run_id IN (SELECT unnest($on_clock))
GROUP BY m.run_id, m.kseq;
