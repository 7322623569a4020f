-- One phase's layer stages and layer kinds added to what `tracedb segment` stores (_seg_stages and
-- _seg_kinds, made empty the first time; segment_save.sql reads them).
-- Inputs: _stages (layer_stages.sql), _layer_kinds (layer_kinds.sql).
-- Parameters:
--   $phase VARCHAR: the phase segmented
-- Output: TEMP _seg_stages, every column of _stages; rows inserted.
-- Output: TEMP _seg_kinds, one row per (run, phase, pass, layer):
--   run_id INTEGER: the run
--   phase VARCHAR: the phase
--   pass BIGINT: the pass
--   layer BIGINT: the layer
--   layer_kind VARCHAR: its kind
CREATE TEMP TABLE IF NOT EXISTS _seg_stages AS SELECT * FROM _stages LIMIT 0;
INSERT INTO _seg_stages SELECT * FROM _stages;
CREATE TEMP TABLE IF NOT EXISTS _seg_kinds AS SELECT run_id, ''::VARCHAR AS phase, pass, layer,
    layer_kind FROM _layer_kinds LIMIT 0;
INSERT INTO _seg_kinds SELECT run_id, $phase, pass, layer, layer_kind FROM _layer_kinds;
