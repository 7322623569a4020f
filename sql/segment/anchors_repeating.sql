-- The kernel names of one run's stream that repeat, with their counts and device time (anchors.py guesses
-- an anchor among them when no attention kernel repeats steadily).
-- Inputs: _stream (segment_stream.sql).
-- Parameters:
--   $run_id INTEGER: the run
-- Output: one row per kernel name seen two times or more: name (the kernel name), n (its kernels), ns (their
--   time, ns).
SELECT name, count(*) AS n, sum(dur_ns) AS ns FROM _stream WHERE run_id = $run_id
AND name IS NOT NULL GROUP BY name HAVING count(*) >= 2;
