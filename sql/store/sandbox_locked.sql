-- Whether a connection is confined already (its configuration locked: confine leaves it as it is). The system
-- catalog's function is named, so that no macro of the store's can stand in for it.
-- Inputs: none.
-- Parameters: none.
-- Output: rows, one: the setting lock_configuration (BOOLEAN).
SELECT system.main.current_setting('lock_configuration');
