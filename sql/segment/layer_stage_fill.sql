-- The stage of each kernel of a layer, from what layer_stages.sql (forward) or layer_stages_backward.sql
-- (backward) says of it: a kernel that names no stage by itself (a norm, a cast, an activation between expert
-- GEMMs) takes the stage of the closest kernel before it in its layer that names one, else of the closest
-- after it, else router (an MoE layer) or ffn.
-- Inputs: TEMP _stage_own(run_id INTEGER, pass BIGINT, layer BIGINT, seq BIGINT, pos BIGINT, moe BOOLEAN,
--   own VARCHAR) (layer_stages.sql, layer_stages_backward.sql: dropped here).
-- Parameters: none.
-- Output: TEMP _stages, one row per kernel of a layer (unit 'layer'):
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   stage VARCHAR: attention | ffn | router | dispatch | experts | combine | shared
CREATE OR REPLACE TEMP TABLE _stages AS
SELECT run_id, seq,
    coalesce(own,
             last_value(own IGNORE NULLS) OVER (PARTITION BY run_id, pass, layer ORDER BY pos
                                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
             first_value(own IGNORE NULLS) OVER (PARTITION BY run_id, pass, layer ORDER BY pos
                                                 ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING),
             CASE WHEN moe THEN 'router' ELSE 'ffn' END) AS stage
FROM _stage_own;
DROP TABLE _stage_own;
