-- The runs, of some, recorded with nn.Module frames, or paired with a graph capture that was.
-- Inputs: runs, host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per such run:
--   run_id INTEGER: the run
SELECT DISTINCT r.run_id FROM runs r LEFT JOIN runs c ON c.tags['capture_of'] = r.tags['capture']
WHERE r.run_id IN (SELECT unnest($run_ids)) AND EXISTS (SELECT 1 FROM host_events h WHERE
    h.run_id IN (r.run_id, c.run_id) AND h.cat = 'python_function' AND starts_with(h.name, 'nn.Module: '));
