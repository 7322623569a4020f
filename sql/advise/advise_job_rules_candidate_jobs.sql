-- Advise rule slow-rank: the jobs of the candidate ranks (report blame runs over each).
-- Inputs: _adv_slow_cand (advise_slow_rank_candidates.sql).
-- Parameters: none.
-- Output: rows, one per job:
--   job VARCHAR: the job (NULL: the untagged selected runs)
SELECT DISTINCT job FROM _adv_slow_cand;
