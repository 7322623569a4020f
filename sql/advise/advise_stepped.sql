-- Advise: the activities with a step (breakdown_steps.sql) kept, and each one's step.
-- Inputs: _bd_act (breakdown_steps.sql).
-- Parameters: none.
-- Output: TEMP _adv_act_stepped, a copy of _bd_act.
-- Output: TEMP _adv_act_step, one row per stepped kernel (an op of comm_ops, without seq, left out):
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: its step
CREATE OR REPLACE TEMP TABLE _adv_act_stepped AS SELECT * FROM _bd_act;
CREATE OR REPLACE TEMP TABLE _adv_act_step AS SELECT run_id, seq, step FROM _bd_act
WHERE seq IS NOT NULL;
