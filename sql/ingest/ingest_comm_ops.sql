-- The ops of one rank's Ascend communication.json (Communication Time Info of each step and op, and of the
-- profiler's Total Op Info) into comm_ops, times already integer ns (tracedb.ingest.ascend_comm).
-- Inputs: none.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $steps VARCHAR[]: step keys
--   $classes VARCHAR[]: collective | p2p
--   $names VARCHAR[]: op names
--   $groups VARCHAR[]: HCCL group ids (after '@')
--   $starts BIGINT[]: Start Timestamp(us) in ns
--   $elapse_nss BIGINT[]: Elapse Time in ns
--   $transit_nss BIGINT[]: Transit Time in ns
--   $wait_nss BIGINT[]: Wait Time in ns
--   $sync_nss BIGINT[]: Synchronization Time in ns
--   $idle_nss BIGINT[]: Idle Time in ns
--   $wait_ratios DOUBLE[]: Wait Time Ratio
--   $sync_ratios DOUBLE[]: Synchronization Time Ratio
-- Output: rows in comm_ops (columns: migrate_5_to_6.sql), one per op.
INSERT INTO comm_ops (run_id, step, op_class, op_name, comm_group, start_ns, elapse_ns, transit_ns, wait_ns,
                      sync_ns, idle_ns, wait_ratio, sync_ratio)
SELECT $run_id, unnest($steps::VARCHAR[]), unnest($classes::VARCHAR[]), unnest($names::VARCHAR[]),
    unnest($groups::VARCHAR[]), unnest($starts::BIGINT[]), unnest($elapse_nss::BIGINT[]),
    unnest($transit_nss::BIGINT[]), unnest($wait_nss::BIGINT[]), unnest($sync_nss::BIGINT[]),
    unnest($idle_nss::BIGINT[]), unnest($wait_ratios::DOUBLE[]), unnest($sync_ratios::DOUBLE[]);
