-- Store schema, version 1 (later versions: the migrate_*.sql files of sql/migrate/, applied in order to
-- every new store too). Creates the tables every other stage reads; the views over them are views.sql,
-- created after the migrations.
-- Inputs: none.
-- Parameters: none.
-- Output: TABLE tracedb_meta, one row per key:
--   key VARCHAR: 'schema_version', or 'pending_run' while a Chrome trace's parts are being ingested
--   value VARCHAR: the schema version, or the pending run's run_id, as text
-- Output: TABLE runs, one ingested profile of one device (rank); run_id keys every other table. Columns,
--   types and meanings as declared below (later versions add columns: migrate_*.sql).
-- Output: TABLE kernels_raw, every device activity row exactly as ingested, in file order (seq), times in
--   BIGINT ns; dup names why a row is not counted ('exact': identical to an earlier row in every source
--   column; 'comm': a communication op logged twice, same run, floor(start µs) and op type). Columns,
--   types and meanings as declared below.
CREATE TABLE tracedb_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE runs (
    run_id        INTEGER PRIMARY KEY,   -- keys every other table
    name          VARCHAR NOT NULL UNIQUE,   -- the run's name (--name, else the profiler folder or file stem)
    tags          MAP(VARCHAR, VARCHAR),   -- KEY -> VALUE (--tag)
    source_path   VARCHAR,           -- what the user named (file or profiler folder)
    source_files  VARCHAR[],         -- the files actually read, in read order
    format        VARCHAR,           -- ascend-kernel-details | ascend-op-summary (later: chrome-trace | ascend-trace-view)
    content_hash  VARCHAR,           -- sha256 over the bytes of source_files, in order
    rank          INTEGER,           -- the device's rank; NULL when unknown
    device_kind   VARCHAR,           -- npu | gpu
    device_id     INTEGER,           -- the device's id (the smallest in the run)
    clock_domain  VARCHAR,           -- unix-epoch-local: absolute local time; unix-epoch: absolute epoch
                                     -- time; trace-relative: from a trace base
    truncated     BOOLEAN,           -- the trace file ends early; read up to its last complete event or row
    kernel_rows   BIGINT,            -- rows in kernels_raw
    kernel_count  BIGINT,            -- rows in kernels (after dedup)
    first_start_ns BIGINT,           -- the earliest kernel start
    last_end_ns   BIGINT,            -- the latest kernel end
    metric_columns VARCHAR[],        -- names of numeric source columns without a column of their own (PMU)
    extra_columns VARCHAR[],         -- names of the other such columns (text)
    metadata      VARCHAR,           -- JSON: profiler_info and similar provenance
    ingested_at   TIMESTAMP,         -- when the run was ingested
    tracedb_version VARCHAR          -- the tracedb that ingested it
);
CREATE TABLE kernels_raw (
    run_id        INTEGER NOT NULL,  -- the run (runs.run_id)
    seq           BIGINT NOT NULL,   -- ingest order within the run (file order)
    start_ns      BIGINT NOT NULL,   -- start, integer ns
    dur_ns        BIGINT NOT NULL,   -- duration, integer ns
    name          VARCHAR,           -- kernel (operator) name
    op_type       VARCHAR,           -- op type (Ascend Type column)
    kind          VARCHAR,           -- kernel | comm | memcpy | memset | task
    core_type     VARCHAR,           -- Ascend Accelerator Core (AI_CORE, MIX_AIC, HCCL, ...)
    device_id     INTEGER,           -- Device_id
    stream_id     BIGINT,            -- Stream ID
    task_id       BIGINT,            -- Task ID
    step_id       BIGINT,            -- Step Id (NULL outside every step)
    model_id      BIGINT,            -- Model ID (NULL for 4294967295, msprof's invalid)
    context_id    BIGINT,            -- Context ID (NULL for 4294967295)
    correlation_id BIGINT,           -- links a kernel to its runtime launch (GPU traces)
    block_dim     INTEGER,           -- Block Dim / Block Num
    mix_block_dim INTEGER,           -- Mix Block Dim / Mix Block Num
    wait_ns       BIGINT,            -- Wait Time, integer ns
    op_state      VARCHAR,           -- OP State
    input_shapes  VARCHAR,           -- as written (msprof quotes them: "1,4096")
    input_dtypes  VARCHAR,           -- Input Data Types
    input_formats VARCHAR,           -- Input Formats
    output_shapes VARCHAR,           -- as written
    output_dtypes VARCHAR,           -- Output Data Types
    output_formats VARCHAR,          -- Output Formats
    metrics       DOUBLE[],          -- values of runs.metric_columns, same order
    extra_text    VARCHAR,           -- values of runs.extra_columns joined by chr(31), '' for NULL: one
                                     -- string stores at a third of the CPU of a VARCHAR[] (2 M rows)
    dup           VARCHAR            -- NULL when counted; 'exact' or 'comm' when a duplicate
);
