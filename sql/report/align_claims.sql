-- The ranks that two or more runs with communication ops claim (two copies of rank 0 in one job): the runs
-- collectives_match.sql leaves out of every match, so that a rank is never paired with itself; clock alignment
-- (engine/jobs/align.py) leaves them out of its clocks and says so in its note.
-- Inputs: _coll_ops (collectives_ops.sql), runs.
-- Parameters: none.
-- Output: rows, one per rank claimed twice or more, by rank:
--   rank INTEGER: the rank
--   run_ids INTEGER[]: the runs that claim it, by run id
--   names VARCHAR[]: their names, in the same order
SELECT o.rank, list(o.run_id ORDER BY o.run_id) AS run_ids, list(r.name ORDER BY o.run_id) AS names
FROM (SELECT DISTINCT run_id, rank FROM _coll_ops WHERE rank IS NOT NULL) o
JOIN runs r USING (run_id)
GROUP BY o.rank
HAVING count(*) > 1
ORDER BY o.rank;
