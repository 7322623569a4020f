-- Report `what-if --layer L=PCT`: the device activities of layer L, in every pass of the segmented runs (report
-- layers' numbering: a pass's first layer is 0).
-- Inputs: _cp_nodes (critical_path_nodes.sql), _assigned (the runs' segmentation).
-- Parameters:
--   $layer BIGINT: the layer
-- Output: rows, one per node:
--   id BIGINT: the node (_cp_nodes.id)
SELECT n.id
FROM _cp_nodes n JOIN _assigned a ON a.run_id = n.run_id AND a.seq = n.ref_seq
WHERE n.side = 'device' AND a.unit = 'layer' AND a.layer = $layer
ORDER BY n.id;
