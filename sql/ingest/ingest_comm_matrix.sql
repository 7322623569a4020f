-- One rank's Ascend communication_matrix.json (per step, op group and src-dst link) into comm_matrix, sizes
-- in bytes and times in ns (tracedb.ingest.ascend_comm).
-- Inputs: none.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $steps VARCHAR[]: step keys
--   $classes VARCHAR[]: collective | p2p
--   $ops VARCHAR[]: op group keys before '@' (allreduce-top1, ...)
--   $groups VARCHAR[]: HCCL group ids
--   $srcs INTEGER[]: source ranks
--   $dsts INTEGER[]: destination ranks
--   $transports VARCHAR[]: Transport Type
--   $sizes BIGINT[]: Transit Size in bytes
--   $times BIGINT[]: Transit Time in ns
--   $bandwidths DOUBLE[]: Bandwidth(GB/s)
--   $op_names VARCHAR[]: Op Name
-- Output: rows in comm_matrix (columns: migrate_5_to_6.sql), one per link.
INSERT INTO comm_matrix (run_id, step, op_class, matrix_op, comm_group, src_rank, dst_rank, transport, size_bytes,
                         time_ns, bandwidth_gbps, op_name)
SELECT $run_id, unnest($steps::VARCHAR[]), unnest($classes::VARCHAR[]), unnest($ops::VARCHAR[]),
    unnest($groups::VARCHAR[]), unnest($srcs::INTEGER[]), unnest($dsts::INTEGER[]), unnest($transports::VARCHAR[]),
    unnest($sizes::BIGINT[]), unnest($times::BIGINT[]), unnest($bandwidths::DOUBLE[]), unnest($op_names::VARCHAR[]);
