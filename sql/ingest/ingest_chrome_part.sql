-- Insert one part of a Chrome trace-event JSON file into trace_events as run $run_id, or several small
-- traces at once, each as its own run: every complete ('X') and metadata ('M') event, straight from
-- DuckDB's JSON reader. Two cursors insert alternate parts of a big trace at once, each in its own
-- transaction; the small traces of a folder ingest's batch go in by one statement (ingest/chrome_json/
-- together.py). The rows stay invisible until the run's final transaction adds its runs row
-- (ingest_chrome_finish); a failed ingest's side store is removed whole (engine/loading/staging.py).
-- Flow, instant and counter events are not kept: they are a third of a Kineto trace's events. Only the
-- host-to-device flows of Ascend's trace_view.json (cat async_npu: 's' on the launching op, 'f' on the
-- device task) are, with their flow id in correlation_id: they give each NPU kernel its launching op.
-- The file's rows come as the reader gives them, with `ordinality` (the position in the file, from 1) and the
--   run_id, base_ns and base_seq they go in with.
-- Placeholders: `more_files`, empty for one file; for several traces, the same read of each further trace,
--   its parameters suffixed _1, _2, ... (schema.more_files), each after UNION ALL: a read of a list of files
--   would number its rows across them;
--   `ts_ns`, the expression turning ts into integer ns, chosen by tracedb.ingest.chrome_json
--   (schema.py): for numbers read as DOUBLE the whole µs and the fraction converted apart (exact for integer
--   epoch µs, whose ts * 1000 a double cannot hold, and for us.fff below 2^43 µs), and an error that makes
--   the loader read ts as DECIMAL instead when a fraction lies beyond that; for numbers read as DECIMAL
--   (epoch µs with a fraction) the exact product; the exact decimal path for Ascend's string ts. Each
--   gives NULL for a ts that cannot be a time (|ts| > 4e15 µs, NaN, infinite): ingest_chrome_check;
--   `arg[key]`, an args field as typed by the reader, or cast from JSON text when the typed read failed, or
--   a typed NULL for a key the reader skips (NPU keys in a Kineto trace: chrome_json.NPU_ARGS);
--   `flow_id`, the flow's id as BIGINT (trace_view.json), else a typed NULL;
--   `args`, the reader's args struct as it is, or for the PyTorch profiler's older layout (PyTorch 1.8-1.9,
--   schema.old_layout) the same struct made from the args' JSON text, its lower-case "external id" (device
--   activities, launch calls) read as the "External id" its ops write (schema.args_read).
--   Each timestamp becomes integer ns before any subtraction.
-- dur is read as text, so that a boolean is not taken for 1 or 0 (the reader turns true into 1.0 for a
--   number column): for a complete event its integer ns, NULL when it is missing or not a duration (not a
--   number, negative, over 1e15 µs) and ingest_chrome_check refuses the file; for other events 0.
-- The args that go into narrower columns (device_id, registers_per_thread INTEGER; grid, block INTEGER[])
--   are TRY_CAST: a value out of their range is NULL, as a value of the wrong type is.
-- cat: lower-cased; the older layout's Operator (23,646 events of the ResNet-50 sample of that layout) is
--   stored as cpu_op: nine readers ask for cpu_op and seven of them for it only (kernel_work's shapes and
--   FLOPs, passes, steps, anchors, phases, backward norms), so one CASE here makes them all right. Only that
--   layout writes Operator. It writes a record_function range as an Operator too, named NAME#QUALIFIER
--   (ProfilerStep#3, Optimizer.step#SGD.step, enumerate(DataLoader)#...; no aten op has a '#'): such an
--   event is stored as user_annotation, as later layouts write it, so that steps and the optimizer are found.
--   Its Runtime stays runtime, which launch_call counts (macros.sql).
-- pid, tid: as the trace writes them, a number's digits or a string's text (the older layout writes tid
--   "25738" as a string, and its flows' tid 25738 as a number: both are 25738), never the JSON's quotes.
-- kind: kernel | memcpy | memset for device activities by category (Kineto's, and the legacy capitalised
--   Kernel / Memcpy / Memset); NULL for host events and metadata. Kinds told by process or thread name
--   (Ascend tasks, NPU cores, simulators) are set once every part is in (ingest_chrome_tasks,
--   ingest_chrome_cores, ingest_chrome_devices).
-- extra_args: NULL unless the event has a field stored there (schema v4, migrate_3_to_4.sql). A collective's
--   c10d metadata (NCCL/RCCL kernels and record_param_comms: "Collective name", "In msg nelems", "Out msg
--   nelems", "Group size", "dtype", "In/Out split size", "Process Group Name/Description/Ranks", "Seq") goes
--   there as a JSON object of keys collective, in_nelems, out_nelems, group_size, dtype, in_split, out_split,
--   pg_name, pg_desc, pg_ranks, seq. A cpu_op's shapes (PyTorch's record_shapes: "Input Dims", "Input type",
--   "Concrete Inputs") go there as a JSON object of keys dims, types, concrete (the args' JSON as written),
--   and in the older layout its "Sequence number" and "Fwd thread id" as seq_nr, fwd_tid (schema.OLD_ONLY_ARGS);
--   ingest_work_ops later drops them from the cpu_ops whose shapes no kernel's work reads. A launch call's kernel name
--   (args.kernel, read for a graph capture only: schema.CAPTURE_ARGS) goes there as a JSON object of key
--   kernel: a captured launch runs no kernel of its own, and graph_capture_match.sql pairs it by that name.
--   A CUDA synchronisation (cat cuda_sync: Stream Wait Event, Event Sync) that waited on an event keeps the
--   stream and the cudaEventRecord call it waited on as a JSON object of keys wait_stream, record_corr
--   (critical_path_nodes.sql).
-- Inputs: the part's file (or the traces' files).
-- Parameters:
--   $file VARCHAR: the part: a JSON array of events
--   $cols STRUCT: the explicit schema: ph, cat, name, pid/tid as JSON, which takes numbers and strings
--     alike, ts DOUBLE, DECIMAL(38,3) or VARCHAR, dur VARCHAR, args as a STRUCT of the keys tracedb reads
--   $run_id INTEGER: the run being ingested
--   $base_seq BIGINT: the part's index * 2^32: seq is file order
--   $base_ns BIGINT: Kineto's baseTimeNanoseconds, else 0
--     (several traces at once: $file, $run_id, $base_seq and $base_ns of the first, those of the others suffixed
--     _1, _2, ...)
-- Output: rows in trace_events (columns: migrate_3_to_4.sql), one per kept event.
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id,
    external_id, device_id, stream_id, grid, block, registers_per_thread, shared_mem_bytes, extra_args)
SELECT run_id, base_seq + ordinality, ph,
    CASE WHEN ph <> 'X' THEN NULL
         WHEN cat = 'kernel' THEN 'kernel'
         WHEN cat IN ('gpu_memcpy', 'memcpy') THEN 'memcpy'
         WHEN cat IN ('gpu_memset', 'memset') THEN 'memset' END,
    cat, name, pid ->> '$', tid ->> '$', base_ns + {ts_ns}, CASE WHEN ph = 'X' THEN dur_ns ELSE coalesce(dur_ns, 0) END,
    CASE WHEN ph IN ('s', 'f') THEN {flow_id} ELSE coalesce({arg[correlation]}, {arg[connection_id]}) END,
    {arg[External id]}, TRY_CAST({arg[device]} AS INTEGER),
    coalesce({arg[stream]}, {arg[Stream Id]}), TRY_CAST({arg[grid]} AS INTEGER[]),
    TRY_CAST({arg[block]} AS INTEGER[]), TRY_CAST({arg[registers per thread]} AS INTEGER),
    {arg[shared memory]},
    CASE WHEN ph = 'M' OR coalesce({arg[Task Id]}, {arg[taskId]}, {arg[extra_id]}) IS NOT NULL
              OR coalesce({arg[Task Type]}, {arg[event-hint]}) IS NOT NULL
         THEN to_json(struct_pack(name := {arg[name]}, sort_index := {arg[sort_index]},
                                  task_id := coalesce({arg[Task Id]}, {arg[taskId]}, {arg[extra_id]}),
                                  task_type := {arg[Task Type]}, hint := {arg[event-hint]}))
         WHEN {arg[Collective name]} IS NOT NULL
         THEN to_json(struct_pack(collective := {arg[Collective name]}, in_nelems := {arg[In msg nelems]},
                                  out_nelems := {arg[Out msg nelems]}, group_size := {arg[Group size]},
                                  dtype := {arg[dtype]}, in_split := {arg[In split size]},
                                  out_split := {arg[Out split size]}, pg_name := {arg[Process Group Name]},
                                  pg_desc := {arg[Process Group Description]},
                                  pg_ranks := {arg[Process Group Ranks]}, seq := {arg[Seq]}))
         WHEN cat = 'cpu_op' AND {arg[Input Dims]} IS NOT NULL AND {arg[Input Dims]} <> '[]'
         THEN '{{"dims":' || {arg[Input Dims]} || ',"types":' || coalesce({arg[Input type]}, 'null')
              || ',"concrete":' || coalesce({arg[Concrete Inputs]}, 'null')
              || coalesce(',"seq_nr":' || CAST({arg[Sequence number]} AS VARCHAR)
                          || ',"fwd_tid":' || CAST({arg[Fwd thread id]} AS VARCHAR), '') || '}}'
         WHEN cat = 'cuda_sync' AND {arg[wait_on_cuda_event_record_corr_id]} >= 0
         THEN to_json(struct_pack(wait_stream := {arg[wait_on_stream]},
                                  record_corr := {arg[wait_on_cuda_event_record_corr_id]}))
         WHEN {arg[kernel]} IS NOT NULL AND cat IN ('cuda_runtime', 'cuda_driver')
         THEN to_json(struct_pack(kernel := {arg[kernel]})) END
FROM (SELECT *, CASE WHEN d BETWEEN 0 AND 1e15 THEN CAST(round(d * 1000) AS BIGINT) END AS dur_ns
      FROM (SELECT * REPLACE (CASE WHEN lower(cat) IS DISTINCT FROM 'operator' THEN lower(cat)
                                    WHEN contains(name, '#') THEN 'user_annotation' ELSE 'cpu_op' END AS cat, {args} AS args),
                TRY_CAST(dur AS DOUBLE) AS d
            FROM (SELECT *, CAST($run_id AS INTEGER) AS run_id, CAST($base_ns AS BIGINT) AS base_ns,
                      CAST($base_seq AS BIGINT) AS base_seq
                  FROM read_json($file, format = 'array', columns = $cols) WITH ORDINALITY{more_files})))
WHERE ph IN ('X', 'M') OR (ph IN ('s', 'f') AND lower(cat) = 'async_npu');
