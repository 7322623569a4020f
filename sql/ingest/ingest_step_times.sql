-- The lines of one rank's Ascend step_trace_time.csv into step_times, times already integer ns
-- (tracedb.ingest.ascend_step_trace: µs read as exact decimals, rounded to the ns).
-- Inputs: none.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $device_ids INTEGER[]: Device_id (NULL: a layout without the column)
--   $steps BIGINT[]: Step (NULL: empty, a capture without step marks)
--   $computing_nss BIGINT[]: Computing
--   $comm_not_overlapped_nss BIGINT[]: Communication(Not Overlapped)
--   $overlapped_nss BIGINT[]: Overlapped
--   $communication_nss BIGINT[]: Communication
--   $free_nss BIGINT[]: Free
--   $stage_nss BIGINT[]: Stage
--   $bubble_nss BIGINT[]: Bubble
--   $comm_not_overlapped_excl_receive_nss BIGINT[]: Communication(Not Overlapped and Exclude Receive)
--   $preparing_nss BIGINT[]: Preparing (NULL: a layout without the column)
-- Output: rows in step_times (columns: migrate_11_to_12.sql), one per line of the file.
INSERT INTO step_times (run_id, device_id, step, computing_ns, comm_not_overlapped_ns, overlapped_ns,
                        communication_ns, free_ns, stage_ns, bubble_ns, comm_not_overlapped_excl_receive_ns,
                        preparing_ns)
SELECT $run_id, unnest($device_ids::INTEGER[]), unnest($steps::BIGINT[]), unnest($computing_nss::BIGINT[]),
    unnest($comm_not_overlapped_nss::BIGINT[]), unnest($overlapped_nss::BIGINT[]),
    unnest($communication_nss::BIGINT[]), unnest($free_nss::BIGINT[]), unnest($stage_nss::BIGINT[]),
    unnest($bubble_nss::BIGINT[]), unnest($comm_not_overlapped_excl_receive_nss::BIGINT[]),
    unnest($preparing_nss::BIGINT[]);
