-- Advise rule slow-rank: the candidate ranks.
-- Inputs: _adv_slow_cand (advise_slow_rank_candidates.sql).
-- Parameters: none.
-- Output: rows, one per candidate, in run order:
--   run_id INTEGER: the run
SELECT run_id FROM _adv_slow_cand ORDER BY run_id;
