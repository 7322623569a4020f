-- Advise rule exposed-comm: each unit's exposed communication, with the waiting for the last rank told from
-- the transfer (breakdown_union.sql over advise_comm_wait.sql's activities).
-- Inputs: _bd_units (breakdown_union.sql).
-- Parameters: none.
-- Output: TEMP _adv_bd_split, one row per unit:
--   run_id INTEGER: the run
--   step BIGINT: the step (NULL: not by step)
--   unit VARCHAR: the unit
--   exposed_ns BIGINT: busy_ns - computing_ns
CREATE OR REPLACE TEMP TABLE _adv_bd_split AS SELECT run_id, step, unit, busy_ns - computing_ns
AS exposed_ns FROM _bd_units;
