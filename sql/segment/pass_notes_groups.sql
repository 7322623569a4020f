-- Every gap group of the runs' passes, for the notes on passes cut by count.
-- Inputs: _pass_groups (segment_passes.sql).
-- Parameters: none.
-- Output: rows, one per (run, group), in that order:
--   run_id INTEGER: the run
--   grp HUGEINT: the gap group
--   passes BIGINT: its passes
--   first_pass BIGINT: its first pass
--   cut_min_ns BIGINT: the smallest gap at a count cut inside it; NULL without cuts
SELECT run_id, grp, passes, first_pass, cut_min_ns FROM _pass_groups ORDER BY run_id, grp;
