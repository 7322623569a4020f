-- The most frequent kernel names of a run, to help choose an anchor.
-- Inputs: _stream (segment_stream.sql: the kernels of the phase being segmented).
-- Parameters:
--   $run_id INTEGER: the run
-- Output: rows, 5 at most, most frequent first, ties by name:
--   name VARCHAR: the kernel name, or its op type when it has none
--   n BIGINT: its kernels
SELECT coalesce(name, op_type) AS name, count(*) AS n FROM _stream WHERE run_id = $run_id
GROUP BY 1 ORDER BY n DESC, name LIMIT 5;
