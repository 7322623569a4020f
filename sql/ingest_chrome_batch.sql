-- Move one staged batch of a Chrome trace (_ev) into the store as run $run_id, in its own transaction.
-- Inputs: _ev (this batch), _meta (metadata events of the batches so far). Parameters: $run_id, $offset
--   (events staged in the earlier batches: seq is the event's position among the file's complete and
--   metadata events, unique across kernels_raw and host_events of the run).
-- Ascend trace_view.json tasks have no category: they are the complete events of the process named
--   'Ascend Hardware' (such a file is read in one batch, so its names are known here).
-- kernels_raw: device activities, device from args.device or the pid, stream from args.stream /
--   args."Stream Id" or the tid; dup = 'pending' hides them from the kernels view until the run's final
--   transaction (ingest_chrome_finish) commits its runs row. host_events: every other complete event
--   (cpu_op, user_annotation, python_function, cuda_runtime, ...), reached only through a run.
-- _meta: this batch's metadata ('M') events, for tracks.
INSERT INTO _meta SELECT pid, tid, name, arg_name, sort_index FROM _ev WHERE ph = 'M';
UPDATE _ev SET kind = 'kernel'
WHERE ph = 'X' AND cat IS NULL AND kind IS NULL
  AND pid IN (SELECT pid FROM _meta WHERE name = 'process_name' AND arg_name = 'Ascend Hardware');
INSERT INTO kernels_raw BY NAME
SELECT $run_id AS run_id, $offset + rowid - (SELECT min(rowid) FROM _ev) AS seq, start_ns, dur_ns, name, kind,
    coalesce(device, TRY_CAST(pid AS INTEGER)) AS device_id, coalesce(stream, TRY_CAST(tid AS BIGINT)) AS stream_id,
    task_id, task_type AS core_type, correlation_id, external_id, grid, block,
    registers AS registers_per_thread, shared_mem AS shared_mem_bytes, 'pending' AS dup
FROM _ev WHERE kind IS NOT NULL;
INSERT INTO host_events BY NAME
SELECT $run_id AS run_id, $offset + rowid - (SELECT min(rowid) FROM _ev) AS seq, start_ns, dur_ns, name, cat, pid, tid,
    correlation_id, external_id, task_id, function_id, core_id
FROM _ev WHERE ph = 'X' AND kind IS NULL;
