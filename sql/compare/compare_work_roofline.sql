-- Report compare --roofline: each assigned kernel's FLOPs and ideal time at its device's peak (report
-- roofline's: the longer of its FLOP and byte terms), for compare_align.sql.
-- Inputs: _rl_kernels (roofline_kernels.sql).
-- Parameters: none.
-- Output: TEMP _cmp_work, one row per kernel of _rl_kernels: run_id, seq, flops, t_ideal (seconds; 0 where
--   neither term is known), rated (its work and its device's peaks are known).
CREATE OR REPLACE TEMP TABLE _cmp_work AS
SELECT run_id, seq, flops, greatest(coalesce(t_flops, 0), coalesce(t_bytes, 0)) AS t_ideal, rated FROM _rl_kernels;
