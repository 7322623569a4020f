-- Advise: report breakdown's units by run kept, and the activities put back for breakdown_steps.sql.
-- Inputs: _bd_units (breakdown_union.sql), _adv_act_run, _adv_copy (advise_keep_activities.sql).
-- Parameters: none.
-- Output: TEMP _adv_bd_run, a copy of _bd_units (one row per run); TEMP _bd_act and TEMP _bd_copy, the
--   copies of advise_keep_activities.sql put back.
CREATE OR REPLACE TEMP TABLE _adv_bd_run AS SELECT * FROM _bd_units;
CREATE OR REPLACE TEMP TABLE _bd_act AS SELECT * FROM _adv_act_run;
CREATE OR REPLACE TEMP TABLE _bd_copy AS SELECT * FROM _adv_copy;
