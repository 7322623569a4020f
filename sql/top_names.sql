-- The most frequent kernel names of a run, to help choose an anchor. Parameters: $run_id.
-- Output: name, count; 5 rows, most frequent first, ties by name.
SELECT coalesce(name, op_type) AS name, count(*) AS n FROM kernels WHERE run_id = $run_id
GROUP BY 1 ORDER BY n DESC, name LIMIT 5;
