-- The (run, pass) pairs whose kernels a layer assignment covers (segment_assign.sql reads them).
-- Inputs: none (the lists given).
-- Parameters:
--   $run_ids INTEGER[]: the run of each pair
--   $passes BIGINT[]: its pass, in the order of $run_ids
-- Output: TEMP _sel, one row per pair:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
CREATE OR REPLACE TEMP TABLE _sel AS SELECT unnest($run_ids)::INTEGER AS run_id, unnest($passes)::BIGINT AS pass;
