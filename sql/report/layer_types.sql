-- The type of each layer of the model, from --config (report layers --clusters groups its layers by it).
-- Inputs: none.
-- Parameters:
--   $types VARCHAR[]: the type of layer 0, 1, ... in order
-- Output: TEMP _layer_types, one row per layer:
--   layer BIGINT: the layer number, from 0
--   layer_type VARCHAR: its type
CREATE OR REPLACE TEMP TABLE _layer_types AS
SELECT unnest(range(len($types))) AS layer, unnest($types) AS layer_type;
