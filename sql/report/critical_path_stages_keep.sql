-- Report critical-path: each layer kernel's stage, as report layers --by stage finds it.
-- Inputs: _stages (the stages of segment/), _cp_stages (critical_path_tables.sql).
-- Parameters: none.
-- Output: TEMP _cp_stages, the rows of _stages added (run_id, seq, stage).
INSERT INTO _cp_stages SELECT run_id, seq, stage FROM _stages;
