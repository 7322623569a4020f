-- Schema v1 -> v2: GPU traces (Chrome/Kineto JSON). Adds launch geometry and resource columns to
-- kernels_raw, run-level device facts, and two tables (columns as declared below):
-- host_events: CPU-side activities (cpu_op, user_annotation, python_function, cuda_runtime/driver, ...)
--   with the correlation id that links a runtime launch to its kernel, in file order (seq);
-- tracks: process and thread names (and sort order) of every (pid, tid) seen in metadata events.
-- pid/tid are opaque text: producers use numbers and strings ("Spans", "").
-- Inputs: a v1 store.
-- Parameters: none.
-- Output: TABLE kernels_raw, new columns:
--   grid INTEGER[]: launch grid (x, y, z) of a GPU kernel
--   block INTEGER[]: thread block (x, y, z) of a GPU kernel
--   registers_per_thread INTEGER: registers per thread of a GPU kernel
--   shared_mem_bytes BIGINT: shared memory of a GPU kernel
--   external_id BIGINT: Kineto's External id (links a kernel to its cpu_op)
--   function_id BIGINT: per-core tasks: the function (kernel) id
--   core_id INTEGER: per-core tasks: the core the task ran on
-- Output: TABLE runs, new columns:
--   device_name VARCHAR: the device's name when the trace gives it
--   world_size INTEGER: ranks in the job when the trace gives it
-- Output: TABLE host_events and TABLE tracks, columns as declared below.
ALTER TABLE kernels_raw ADD COLUMN grid INTEGER[];
ALTER TABLE kernels_raw ADD COLUMN block INTEGER[];
ALTER TABLE kernels_raw ADD COLUMN registers_per_thread INTEGER;
ALTER TABLE kernels_raw ADD COLUMN shared_mem_bytes BIGINT;
ALTER TABLE kernels_raw ADD COLUMN external_id BIGINT;
ALTER TABLE kernels_raw ADD COLUMN function_id BIGINT;   -- per-core tasks: the function (kernel) id
ALTER TABLE kernels_raw ADD COLUMN core_id INTEGER;      -- per-core tasks: the core the task ran on
ALTER TABLE runs ADD COLUMN device_name VARCHAR;
ALTER TABLE runs ADD COLUMN world_size INTEGER;
CREATE TABLE host_events (
    run_id        INTEGER NOT NULL,
    seq           BIGINT NOT NULL,   -- position among the run's events in file order
    start_ns      BIGINT NOT NULL,
    dur_ns        BIGINT NOT NULL,
    name          VARCHAR,
    cat           VARCHAR,           -- lower-cased: cpu_op, user_annotation, python_function, cuda_runtime, ...
    pid           VARCHAR,
    tid           VARCHAR,
    correlation_id BIGINT,
    external_id   BIGINT,
    task_id       BIGINT,            -- per-core traces: args.taskId / "Task Id" (events become tasks
    function_id   BIGINT,            --   when their thread is a core); FuncId and CoreId of the
    core_id       INTEGER            --   runtime swimlane's event-hint
);
CREATE TABLE tracks (
    run_id        INTEGER NOT NULL,
    pid           VARCHAR,
    tid           VARCHAR,           -- NULL for a process-level row
    process_name  VARCHAR,
    thread_name   VARCHAR,
    sort_index    INTEGER,
    core_class    VARCHAR            -- per-core traces: AIC / AIV (or a --core-rule class); NULL otherwise
);
