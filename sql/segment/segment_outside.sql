-- Kernels that no window of a full-window segmentation holds (only the backward work that follows a
-- forward pass in a training trace falls outside: every other kernel belongs to some pass's window).
-- Inputs: kernels, _windows.
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
-- Output: rows, one per run with such kernels, in run_id order:
--   run_id INTEGER: the run
--   kernels BIGINT: kernels in no window
--   sum_ns HUGEINT: their time
SELECT k.run_id, count(*) AS kernels, sum(k.dur_ns) AS sum_ns
FROM kernels k
ASOF LEFT JOIN _windows w ON k.run_id = w.run_id AND k.start_ns >= w.win_start
WHERE k.run_id IN (SELECT unnest($run_ids)) AND (w.run_id IS NULL OR k.start_ns > w.win_end)
GROUP BY k.run_id
ORDER BY k.run_id;
