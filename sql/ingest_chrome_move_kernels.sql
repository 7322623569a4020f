-- Move the device activities of one staged batch of a Chrome trace into kernels_raw as run $run_id, in
-- the mover's transaction (then ingest_chrome_move_host), while the parsing connection stages the next
-- batch.
-- Inputs: tracedb_stage.<table> (this batch, after ingest_chrome_staged). Parameters: $run_id, $offset
--   (events staged in the earlier batches: seq is the event's position among the file's complete and
--   metadata events, unique across kernels_raw and host_events of the run).
-- Device from args.device or the pid, stream from args.stream / args."Stream Id" or the tid;
-- dup = 'pending' hides the rows from the kernels view until the run's final transaction
-- (ingest_chrome_finish) commits its runs row.
INSERT INTO kernels_raw BY NAME
SELECT $run_id AS run_id, $offset + rowid - (SELECT min(rowid) FROM tracedb_stage.{ev}) AS seq, start_ns, dur_ns, name, kind,
    coalesce(device, TRY_CAST(pid AS INTEGER)) AS device_id, coalesce(stream, TRY_CAST(tid AS BIGINT)) AS stream_id,
    task_id, task_type AS core_type, correlation_id, external_id, grid, block,
    registers AS registers_per_thread, shared_mem AS shared_mem_bytes, 'pending' AS dup
FROM tracedb_stage.{ev} WHERE kind IS NOT NULL;
