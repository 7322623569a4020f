-- The model layer of each pipeline stage's layer 0, as model_layers.sql found it.
-- Inputs: _seg_model (model_layers.sql).
-- Parameters: none.
-- Output: rows, one per row of _seg_model:
--   run_id INTEGER: the run
--   pp_stage INTEGER: its stage
--   layer_base BIGINT: the model layer of its layer 0
--   assumed BOOLEAN: an earlier stage's layer count was taken to equal this stage's
SELECT * FROM _seg_model;
