-- Move one staged batch of a Chrome trace into the store as run $run_id, in its own transaction, on the
-- mover's cursor while the parsing connection stages the next batch.
-- Inputs: tracedb_stage.<table> (this batch, after ingest_chrome_staged). Parameters: $run_id, $offset
--   (events staged in the earlier batches: seq is the event's position among the file's complete and
--   metadata events, unique across kernels_raw and host_events of the run).
-- kernels_raw: device activities, device from args.device or the pid, stream from args.stream /
--   args."Stream Id" or the tid; dup = 'pending' hides them from the kernels view until the run's final
--   transaction (ingest_chrome_finish) commits its runs row. host_events: every other complete event
--   (cpu_op, user_annotation, python_function, cuda_runtime, ...), reached only through a run.
INSERT INTO kernels_raw BY NAME
SELECT $run_id AS run_id, $offset + rowid - (SELECT min(rowid) FROM tracedb_stage.{ev}) AS seq, start_ns, dur_ns, name, kind,
    coalesce(device, TRY_CAST(pid AS INTEGER)) AS device_id, coalesce(stream, TRY_CAST(tid AS BIGINT)) AS stream_id,
    task_id, task_type AS core_type, correlation_id, external_id, grid, block,
    registers AS registers_per_thread, shared_mem AS shared_mem_bytes, 'pending' AS dup
FROM tracedb_stage.{ev} WHERE kind IS NOT NULL;
INSERT INTO host_events BY NAME
SELECT $run_id AS run_id, $offset + rowid - (SELECT min(rowid) FROM tracedb_stage.{ev}) AS seq, start_ns, dur_ns, name, cat, pid, tid,
    correlation_id, external_id, task_id, function_id, core_id
FROM tracedb_stage.{ev} WHERE ph = 'X' AND kind IS NULL;
