-- Report `what-if --roofline PCT`: each kernel's ideal time at the device's peak (report roofline's:
-- roofline_kernels.sql), for the kernels whose work is known and rated, keyed by critical-path node.
-- Inputs: _rl_kernels (roofline_kernels.sql over an _assigned of every kernel of the runs), _cp_nodes.
-- Parameters: none.
-- Output: rows, one per rated kernel:
--   node BIGINT: its node (_cp_nodes.id)
--   ideal_ns BIGINT: the longer of flops / peak FLOP/s and bytes / peak bytes/s, ns
SELECT n.id AS node, CAST(round(greatest(coalesce(r.t_flops, 0), coalesce(r.t_bytes, 0)) * 1e9) AS BIGINT) AS ideal_ns
FROM _rl_kernels r JOIN _cp_nodes n ON n.run_id = r.run_id AND n.ref_seq = r.seq AND n.side = 'device'
WHERE r.rated
ORDER BY n.id;
