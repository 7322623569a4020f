-- The Communication Bandwidth Info of one rank's Ascend communication.json (per op and link type with a
-- non-zero size or time) into comm_links, sizes in bytes and times in ns (tracedb.ingest.ascend_comm).
-- Inputs: none.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $steps VARCHAR[]: step keys
--   $classes VARCHAR[]: collective | p2p
--   $names VARCHAR[]: op names
--   $groups VARCHAR[]: HCCL group ids
--   $transports VARCHAR[]: link types (RDMA, HCCS, PCIE, SDMA, SIO)
--   $sizes BIGINT[]: Transit Size in bytes
--   $times BIGINT[]: Transit Time in ns
--   $bandwidths DOUBLE[]: Bandwidth(GB/s)
--   $large_ratios DOUBLE[]: Large Packet Ratio
-- Output: rows in comm_links (columns: migrate_5_to_6.sql), one per op and link type.
INSERT INTO comm_links (run_id, step, op_class, op_name, comm_group, transport, size_bytes, time_ns,
                        bandwidth_gbps, large_packet_ratio)
SELECT $run_id, unnest($steps::VARCHAR[]), unnest($classes::VARCHAR[]), unnest($names::VARCHAR[]),
    unnest($groups::VARCHAR[]), unnest($transports::VARCHAR[]), unnest($sizes::BIGINT[]), unnest($times::BIGINT[]),
    unnest($bandwidths::DOUBLE[]), unnest($large_ratios::DOUBLE[]);
