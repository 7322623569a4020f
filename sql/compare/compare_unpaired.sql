-- Report compare --by kernel: per run, its kernels without a counterpart at the same key (kept unpaired).
-- Inputs: _cmp (compare_align.sql).
-- Parameters: none.
-- Output: rows, one per run with such kernels:
--   run_id INTEGER: the run
--   unpaired BIGINT: its rows of _cmp not aligned
SELECT run_id, count(*) AS unpaired FROM _cmp WHERE NOT aligned GROUP BY run_id;
