-- Report roofline: each run's roof for the chart: its device's bf16 peak (a --peak-tflops override for every
-- dtype first), else its highest, and its memory bandwidth.
-- Inputs: _peaks (peaks_table.sql), runs (schema.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run with peaks, in the order of $run_ids:
--   name VARCHAR: the run's name
--   tflops DOUBLE: its FLOP/s roof, TFLOP/s
--   tbs DOUBLE: its bandwidth roof, TB/s
SELECT r.name, coalesce(max(p.flops_s) FILTER (WHERE p.dtype IS NULL),
max(p.flops_s) FILTER (WHERE p.dtype = 'bf16'), max(p.flops_s)) / 1e12 AS tflops, max(p.bytes_s) / 1e12 AS tbs
FROM _peaks p JOIN runs r USING (run_id) WHERE p.run_id IN (SELECT unnest($run_ids)) GROUP BY r.name, p.run_id
ORDER BY list_position($run_ids, p.run_id);
