-- Advise: the runs' activities (report breakdown's, by run) kept before breakdown_union.sql and
-- breakdown_steps.sql replace them.
-- Inputs: _bd_act, _bd_copy (breakdown_activity.sql).
-- Parameters: none.
-- Output: TEMP _adv_act_run, a copy of _bd_act; TEMP _adv_copy, a copy of _bd_copy (the same columns).
CREATE OR REPLACE TEMP TABLE _adv_act_run AS SELECT * FROM _bd_act;
CREATE OR REPLACE TEMP TABLE _adv_copy AS SELECT * FROM _bd_copy;
