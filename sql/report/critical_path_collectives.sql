-- Report `critical-path --job`: a collective's end waits for its last member to arrive. For each
-- communication op of a job's ranks matched across them (_coll_match, collectives_match.sql: consistent
-- instances of two or more members), the candidate is the other member that started last, released at its
-- start read on this op's clock (both moved to the job's clock by _cp_offsets: engine/jobs/align.py). Only
-- the latest other member: a 1,024-rank instance would otherwise give a million pairs.
-- Inputs: _coll_match, _cp_nodes, _cp_offsets.
-- Parameters: none.
-- Output: rows added to TEMP _cp_cands (edge collective, pref 1).
INSERT INTO _cp_cands
WITH arrivals AS (
    SELECT n.id, m.grp, m.mkey, n.start_ns + coalesce(o.off_ns, 0) AS arrived, n.run_id
    FROM _coll_match m
    JOIN _cp_nodes n ON n.run_id = m.run_id AND n.ref_seq = m.kseq AND n.side = 'device'
    LEFT JOIN _cp_offsets o ON o.run_id = m.run_id
    WHERE m.consistent AND m.members >= 2 AND m.kseq IS NOT NULL
), ranked AS (
    SELECT *, row_number() OVER (PARTITION BY grp, mkey ORDER BY arrived DESC, id DESC) AS place FROM arrivals
), top2 AS (
    SELECT grp, mkey, arg_max(id, -place) AS first_id, max(arrived) FILTER (WHERE place = 1) AS first_at,
        max(id) FILTER (WHERE place = 2) AS second_id, max(arrived) FILTER (WHERE place = 2) AS second_at
    FROM ranked WHERE place <= 2 GROUP BY grp, mkey
)
SELECT a.id, CASE WHEN a.id = t.first_id THEN t.second_id ELSE t.first_id END AS pred,
    (CASE WHEN a.id = t.first_id THEN t.second_at ELSE t.first_at END) - coalesce(o.off_ns, 0) AS release_ns,
    'collective' AS edge, 1 AS pref
FROM arrivals a JOIN top2 t USING (grp, mkey) LEFT JOIN _cp_offsets o ON o.run_id = a.run_id
WHERE (CASE WHEN a.id = t.first_id THEN t.second_id ELSE t.first_id END) IS NOT NULL;
