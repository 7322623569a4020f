-- What the module tree found of each run before in this session: whether it records nn.Module frames and
-- layer ranges (module_tree_sources_add.sql adds the runs met for the first time).
-- Inputs: none; the session's _layer_sources, made empty here the first time.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _layer_sources, one row per run met before:
--   run_id INTEGER: the run
--   frames BOOLEAN: it records nn.Module frames (or its paired capture does)
--   ranges BOOLEAN: it names its layers with user annotations
-- Output: rows, one per run of $run_ids in _layer_sources:
--   run_id INTEGER: the run
--   frames BOOLEAN: nn.Module frames
--   ranges BOOLEAN: layer ranges
CREATE TEMP TABLE IF NOT EXISTS _layer_sources (run_id INTEGER, frames BOOLEAN, ranges BOOLEAN);
SELECT run_id, frames, ranges FROM _layer_sources WHERE run_id IN (SELECT unnest($run_ids));
