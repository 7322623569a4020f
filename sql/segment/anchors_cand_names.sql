-- The kernel names of every anchor candidate set of the runs, each candidate numbered across the runs
-- (anchor_candidates.sql reads it).
-- Inputs: none (the lists given).
-- Parameters:
--   $cands INTEGER[]: the candidate of each name
--   $run_ids INTEGER[]: its run
--   $names VARCHAR[]: the name
-- Output: TEMP _cand_names, one row per (candidate, name):
--   cand INTEGER: the candidate
--   run_id INTEGER: its run
--   name VARCHAR: one of its kernel names
CREATE OR REPLACE TEMP TABLE _cand_names AS SELECT unnest($cands)::INTEGER AS cand,
    unnest($run_ids)::INTEGER AS run_id, unnest($names) AS name;
