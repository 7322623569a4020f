-- Move the host events of one staged batch of a Chrome trace into host_events as run $run_id, in the
-- mover's transaction, after ingest_chrome_move_kernels: every complete event that is not a device
-- activity (cpu_op, user_annotation, python_function, cuda_runtime, ...), reached only through a runs
-- row, which the run's final transaction adds.
-- Inputs: tracedb_stage.<table>. Parameters: $run_id, $offset (as in ingest_chrome_move_kernels).
INSERT INTO host_events BY NAME
SELECT $run_id AS run_id, $offset + rowid - (SELECT min(rowid) FROM tracedb_stage.{ev}) AS seq, start_ns, dur_ns, name, cat, pid, tid,
    correlation_id, external_id, task_id, function_id, core_id
FROM tracedb_stage.{ev} WHERE ph = 'X' AND kind IS NULL;
