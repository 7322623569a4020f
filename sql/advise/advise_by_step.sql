-- Advise: report breakdown's units by step kept (a run without steps has no rows), the kept copies dropped.
-- Inputs: _bd_units (breakdown_union.sql over breakdown_steps.sql), _adv_copy.
-- Parameters: none.
-- Output: TEMP _adv_bd_step, the rows of _bd_units with a step (the same columns); TEMP _adv_copy dropped.
CREATE OR REPLACE TEMP TABLE _adv_bd_step AS SELECT * FROM _bd_units WHERE step IS NOT NULL;
DROP TABLE _adv_copy;
