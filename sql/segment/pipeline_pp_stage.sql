-- The pipeline stage of each run that is a stage of a pipeline of two or more (pipeline_stage.sql found
-- it), for model_layers.sql and the reports that compare a rank with its own stage's ranks.
-- Inputs: none (the lists given).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $stages INTEGER[]: the stage of each
--   $stage_counts INTEGER[]: the pipeline's stages
-- Output: TEMP _pp_stage, one row per run:
--   run_id INTEGER: the run
--   pp_stage INTEGER: its stage
--   pp_stages INTEGER: the pipeline's stages
CREATE OR REPLACE TEMP TABLE _pp_stage AS SELECT unnest($run_ids)::INTEGER AS run_id,
    unnest($stages)::INTEGER AS pp_stage, unnest($stage_counts)::INTEGER AS pp_stages;
