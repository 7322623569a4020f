-- The anchor candidate chosen for each run, whose pass split stands for the run's own (candidate_passes.sql).
-- Inputs: none (the lists given).
-- Parameters:
--   $cands INTEGER[]: the chosen candidate of each run (its index in _cand_names)
--   $run_ids INTEGER[]: the runs, in the order of $cands
-- Output: TEMP _chosen, one row per run:
--   cand INTEGER: the candidate
--   run_id INTEGER: the run
CREATE OR REPLACE TEMP TABLE _chosen AS SELECT unnest($cands)::INTEGER AS cand,
    unnest($run_ids)::INTEGER AS run_id;
