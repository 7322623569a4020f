-- Schema v3 -> v4: Chrome / Kineto JSON runs land in one table, trace_events, filled straight from the
-- JSON reader (one INSERT per part of the file, no staging, no second copy into kernels_raw: a 1 GB trace
-- ingests 15-28 % faster in ~20 % less memory).
-- trace_events: one row per complete ('X') or metadata ('M') event of a Chrome trace, in file order (seq).
--   kind: kernel | memcpy | memset | task for device activities, NULL for host events and metadata.
--   device_id, stream_id: args.device / args.stream as written (the kernels view falls back to pid, tid).
--   extra_args: JSON text of the args tracedb reads that have no column of their own, NULL when the event
--     has none (most): a metadata event's name and sort_index; an NPU task's task id, task type and
--     runtime event-hint. One mostly-NULL text column costs the reader far less than six (1 CPU-s per GB).
--   task_id, core_type, function_id, core_id: NPU traces only, filled from extra_args by the run's final
--     transaction (ingest_chrome_tasks.sql), as are the kinds of tasks told apart by process or thread name
--     (ingest_chrome_tasks.sql, ingest_chrome_cores.sql, ingest_chrome_devices.sql).
-- The table host_events goes: from v4 on, host_events is a view of trace_events, and the kernels view adds
-- the device activities of trace_events to the kernels_raw rows (Ascend CSV runs, and Chrome runs ingested
-- before v4, which stay where they are); both in views.sql.
-- Inputs: a v3 store.
-- Parameters: none.
-- Output: TABLE trace_events, columns as declared below (the rows of the old host_events table moved in);
--   the table host_events dropped.
CREATE TABLE trace_events (
    run_id        INTEGER NOT NULL,
    seq           BIGINT NOT NULL,   -- file order: part index * 2^32 + position in the part (not dense)
    ph            VARCHAR,
    kind          VARCHAR,
    cat           VARCHAR,           -- lower-cased
    name          VARCHAR,
    pid           VARCHAR,
    tid           VARCHAR,
    start_ns      BIGINT,            -- NULL only in a file that ingest refuses (a complete event without ts)
    dur_ns        BIGINT,
    correlation_id BIGINT,
    external_id   BIGINT,
    device_id     INTEGER,
    stream_id     BIGINT,
    grid          INTEGER[],
    block         INTEGER[],
    registers_per_thread INTEGER,
    shared_mem_bytes BIGINT,
    extra_args    VARCHAR,
    task_id       BIGINT,
    core_type     VARCHAR,
    function_id   BIGINT,
    core_id       INTEGER
);
INSERT INTO trace_events BY NAME
SELECT run_id, seq, 'X' AS ph, start_ns, dur_ns, name, cat, pid, tid, correlation_id, external_id, task_id,
    function_id, core_id
FROM host_events;
DROP TABLE host_events;
