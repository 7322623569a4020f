-- Per run, its layers of each kind over the selected passes, for its note.
-- Inputs: _layer_kinds (layer_kinds.sql).
-- Parameters: none.
-- Output: rows, one per (run, layer kind), in that order:
--   run_id INTEGER: the run
--   layer_kind VARCHAR: the kind
--   layers BIGINT: its layers
SELECT run_id, layer_kind, count(*) AS layers FROM _layer_kinds GROUP BY ALL ORDER BY ALL;
