-- The pipeline stage of each segmented run and the model layer its local layer 0 is: a stage's layers
-- follow those of the stages before it. A stage's layer count is the most layers a pass of its runs holds
-- (forward passes; backward where a run has none); the stages before it sum theirs. A stage none of whose
-- runs is segmented here is assumed to hold as many layers as the stage being numbered (an even split), and
-- `assumed` says so: Megatron splits evenly unless told otherwise (--decoder-first/last-pipeline-num-layers),
-- and a Qwen3 job of 28 layers on 2 stages holds 14 + 14.
-- Inputs: TEMP _pp_stage(run_id INTEGER, pp_stage INTEGER, pp_stages INTEGER) (pipeline_stage.sql's rows:
--   tracedb.engine.segmentation.pipeline), TEMP _run_layers(run_id INTEGER, layers BIGINT) (the layers of each
--   segmented run's passes: the most a forward pass holds, else a backward one).
-- Parameters: none.
-- Output: TEMP _seg_model, one row per run of _pp_stage:
--   run_id INTEGER: the run
--   pp_stage INTEGER: its stage
--   layer_base BIGINT: the model layer of its layer 0
--   assumed BOOLEAN: an earlier stage's layer count was not seen and taken to equal this stage's
CREATE OR REPLACE TEMP TABLE _seg_model AS
WITH per_stage AS (
    SELECT p.pp_stage, max(r.layers) AS layers
    FROM _pp_stage p JOIN _run_layers r USING (run_id) GROUP BY p.pp_stage
)
SELECT p.run_id, p.pp_stage,
    coalesce((SELECT sum(coalesce(q.layers, own.layers)) FROM range(p.pp_stage) t(s)
              LEFT JOIN per_stage q ON q.pp_stage = t.s), 0)::BIGINT AS layer_base,
    EXISTS (SELECT 1 FROM range(p.pp_stage) t(s) WHERE t.s NOT IN (SELECT pp_stage FROM per_stage)) AS assumed
FROM _pp_stage p LEFT JOIN per_stage own ON own.pp_stage = p.pp_stage;
