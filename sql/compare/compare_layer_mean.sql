-- Report compare --layer mean: every full layer of the selected passes becomes a unit of its own, a pseudo
-- pass (pass * 1000000 + layer) of layer NULL, so that the means over passes average layers. The prologue,
-- and in a capture that starts mid-pass the layer cut at its start, are no full layers: left out.
-- Inputs: _assigned (segment_assign.sql), _passes (segment_passes.sql).
-- Parameters:
--   $blocks_per_layer BIGINT: blocks per layer
-- Output: TEMP _assigned, updated in place (rows left out deleted, pass and layer rewritten); then rows,
--   one per run with layers, in run order: run_id and its count of layers (units).
DELETE FROM _assigned a WHERE layer IS NULL OR EXISTS (SELECT 1 FROM _passes p WHERE p.run_id =
a.run_id AND p.pass = a.pass AND a.layer * $blocks_per_layer < p.block_base);
UPDATE _assigned SET pass = pass * 1000000 + layer, layer = NULL;
SELECT run_id, count(DISTINCT pass) FROM _assigned GROUP BY run_id
ORDER BY run_id;
