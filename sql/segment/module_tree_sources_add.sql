-- The runs met for the first time added to _layer_sources (module_tree_sources.sql).
-- Inputs: _layer_sources.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $frames BOOLEAN[]: whether each records nn.Module frames
--   $ranges BOOLEAN[]: whether each names its layers with user annotations
-- Output: rows inserted into TEMP _layer_sources.
INSERT INTO _layer_sources SELECT unnest($run_ids), unnest($frames), unnest($ranges);
