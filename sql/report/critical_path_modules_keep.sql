-- Report critical-path: each kernel's launching module, as report modules names it.
-- Inputs: _attr (module attribution of segment/), _cp_modules (critical_path_tables.sql).
-- Parameters: none.
-- Output: TEMP _cp_modules, the rows of _attr added (run_id, seq, module).
INSERT INTO _cp_modules SELECT run_id, seq, module FROM _attr;
