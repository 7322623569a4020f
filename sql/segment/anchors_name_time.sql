-- The device time of given kernel names in one run's stream (anchors.py: of the attention kernels that run
-- once in each serving step of a one-layer model, the one with most time anchors it).
-- Inputs: _stream (segment_stream.sql).
-- Parameters:
--   $run_id INTEGER: the run
--   $names VARCHAR[]: the kernel names
-- Output: one row per name of $names the stream holds: name (the kernel name), ns (its kernels' time, ns).
SELECT name, sum(dur_ns) AS ns FROM _stream WHERE run_id = $run_id AND name IN (SELECT unnest($names))
GROUP BY name;
