-- Advise rule roofline-gap: per run, its hot kernel names and those with known work, for the notes.
-- Inputs: _adv_roofline_hot (advise_roofline_gap.sql).
-- Parameters: none.
-- Output: rows, one per run with hot kernels:
--   run_id INTEGER: the run
--   hot BIGINT: its hot kernel names
--   rated BIGINT: those whose work and peaks are known
SELECT run_id, count(*) AS hot, count(*) FILTER (WHERE rated) AS rated FROM _adv_roofline_hot
GROUP BY run_id;
