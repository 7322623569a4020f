-- Report compare without --roofline: no kernel's work (compare_align.sql reads the table all the same).
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _cmp_work, empty:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   flops BIGINT: its FLOPs
--   t_ideal DOUBLE: its ideal time at its device's peak, seconds
--   rated BOOLEAN: its work and its device's peaks are known
CREATE OR REPLACE TEMP TABLE _cmp_work (run_id INTEGER, seq BIGINT, flops BIGINT, t_ideal DOUBLE, rated BOOLEAN);
