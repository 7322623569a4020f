-- Store schema, version 1 (later versions: migrate_*.sql, applied in order to every new store too).
-- Inputs: none. Creates the tables and views every other stage reads.
-- runs:        one ingested profile of one device (rank); run_id keys every other table.
-- kernels_raw: every device activity row exactly as ingested, in file order (seq), times in BIGINT ns;
--              dup names why a row is not counted ('exact': identical to an earlier row in every source
--              column; 'comm': a communication op logged twice, same run, floor(start µs) and op type).
-- kernels:     the rows reports read: kernels_raw without the duplicates.
CREATE TABLE tracedb_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE runs (
    run_id        INTEGER PRIMARY KEY,
    name          VARCHAR NOT NULL UNIQUE,
    tags          MAP(VARCHAR, VARCHAR),
    source_path   VARCHAR,           -- what the user named (file or profiler folder)
    source_files  VARCHAR[],         -- the files actually read, in read order
    format        VARCHAR,           -- ascend-kernel-details | ascend-op-summary
    content_hash  VARCHAR,           -- sha256 over the bytes of source_files, in order
    rank          INTEGER,
    device_kind   VARCHAR,           -- npu | gpu
    device_id     INTEGER,
    clock_domain  VARCHAR,           -- unix-epoch-local: absolute local time; relative: from a trace base
    truncated     BOOLEAN,
    kernel_rows   BIGINT,            -- rows in kernels_raw
    kernel_count  BIGINT,            -- rows in kernels (after dedup)
    first_start_ns BIGINT,
    last_end_ns   BIGINT,
    metric_columns VARCHAR[],        -- names of numeric source columns without a column of their own (PMU)
    extra_columns VARCHAR[],         -- names of the other such columns (text)
    metadata      VARCHAR,           -- JSON: profiler_info and similar provenance
    ingested_at   TIMESTAMP,
    tracedb_version VARCHAR
);
CREATE TABLE kernels_raw (
    run_id        INTEGER NOT NULL,
    seq           BIGINT NOT NULL,   -- ingest order within the run (file order)
    start_ns      BIGINT NOT NULL,
    dur_ns        BIGINT NOT NULL,
    name          VARCHAR,
    op_type       VARCHAR,
    kind          VARCHAR,           -- kernel | comm | memcpy | memset | task
    core_type     VARCHAR,           -- Ascend Accelerator Core (AI_CORE, MIX_AIC, HCCL, ...)
    device_id     INTEGER,
    stream_id     BIGINT,
    task_id       BIGINT,
    step_id       BIGINT,
    model_id      BIGINT,
    context_id    BIGINT,
    correlation_id BIGINT,
    block_dim     INTEGER,
    mix_block_dim INTEGER,
    wait_ns       BIGINT,
    op_state      VARCHAR,
    input_shapes  VARCHAR,
    input_dtypes  VARCHAR,
    input_formats VARCHAR,
    output_shapes VARCHAR,
    output_dtypes VARCHAR,
    output_formats VARCHAR,
    metrics       DOUBLE[],          -- values of runs.metric_columns, same order
    extra_text    VARCHAR,           -- values of runs.extra_columns joined by chr(31), '' for NULL: one
                                     -- string stores at a third of the CPU of a VARCHAR[] (2 M rows)
    dup           VARCHAR            -- NULL when counted; 'exact' or 'comm' when a duplicate
);
CREATE VIEW kernels AS
    SELECT * EXCLUDE (dup, metrics, extra_text) FROM kernels_raw WHERE dup IS NULL;
-- Numeric source columns that have no column of their own (PMU metrics), one row per kernel and metric.
CREATE VIEW kernel_metrics AS
    SELECT k.run_id, k.seq, unnest(r.metric_columns) AS metric, unnest(k.metrics) AS value
    FROM kernels_raw k JOIN runs r USING (run_id);
-- Text source columns that have no column of their own, one row per kernel and column.
CREATE VIEW kernel_extras AS
    SELECT run_id, seq, column_name, nullif(value, '') AS value FROM (
        SELECT k.run_id, k.seq, unnest(r.extra_columns) AS column_name,
               unnest(string_split(coalesce(k.extra_text, ''), chr(31))) AS value
        FROM kernels_raw k JOIN runs r USING (run_id) WHERE len(r.extra_columns) > 0);
