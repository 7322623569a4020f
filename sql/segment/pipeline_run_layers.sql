-- The layers of each segmented run's passes, for model_layers.sql.
-- Inputs: none (the lists given).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $layers BIGINT[]: the layers of each
-- Output: TEMP _run_layers, one row per run:
--   run_id INTEGER: the run
--   layers BIGINT: its layers
CREATE OR REPLACE TEMP TABLE _run_layers AS SELECT unnest($run_ids)::INTEGER AS run_id,
    unnest($layers)::BIGINT AS layers;
