-- How many kernels of each run's stream each of its attention names has (the anchor proposal pairs names
-- whose counts are alike).
-- Inputs: _stream (segment_stream.sql).
-- Parameters:
--   $run_ids INTEGER[]: a run per name, in the order of $names
--   $names VARCHAR[]: the attention names
-- Output: rows, one per (run, name) of the lists that the stream has:
--   run_id INTEGER: the run
--   name VARCHAR: the kernel name
--   n BIGINT: its kernels
SELECT run_id, name, count(*) AS n FROM _stream
JOIN (SELECT unnest($run_ids)::INTEGER AS run_id, unnest($names) AS name) USING (run_id, name)
GROUP BY ALL;
