-- Schema v9 -> v10: less stored per row of an Ascend CSV, the same rows read.
-- 1. The rows of kernels_raw are kept in two tables by the columns their readers fill, and kernels_raw
--    becomes the view of both (views.sql), with the same columns as before. DuckDB's append analyses every
--    column of every row group for compression, NULL or not (~40 ms of CPU per column per 2 M rows, and as
--    much again to write it): Ascend's CSVs never fill the seven GPU launch columns, which cost a 2 M-row
--    kernel_details.csv ~0.3 s of CPU, a tenth of its whole ingest.
-- 2. The work of kernels that carry their own shapes (Ascend CSVs and SQLite exports) is stored once per
--    distinct (text tuple, op type, core type), not once per kernel (1.26 M rows for the 2 M-row CSV,
--    0.3 s of CPU); kernel_work becomes a view that gives it to each counted kernel of the tuple, beside
--    the per-kernel rows of PyTorch-profiler traces.
-- Inputs: a v9 store.
-- Parameters: none.
-- Output: TABLE kernels_raw_full, the former kernels_raw table renamed, rows included: the rows of every
--   reader but the Ascend CSV one (Kineto's device rows are in trace_events), with all kernels_raw columns.
-- Output: TABLE kernels_raw_ascend_csv, the rows of Ascend kernel_details.csv and msprof op_summary CSVs
--   ingested from now on: kernels_raw's columns without grid, block, registers_per_thread,
--   shared_mem_bytes, external_id, function_id and core_id (NULL for these rows in the view).
-- Output: TABLE kernel_work_rows, the former kernel_work table renamed, rows included: the work of each
--   kernel of a PyTorch-profiler trace (ingest_work_ops.sql), and of every kernel of runs ingested before
--   v10. Columns run_id, seq, flops, bytes, flops_source, dtype as kernel_work's (migrate_8_to_9.sql).
-- Output: TABLE kernel_work_tuples, the work of the kernels that carry their own shapes, from v10 on, once
--   per run and distinct tuple (ingest_work_npu.sql):
--   run_id INTEGER: the run
--   text_id INTEGER: the kernels' text tuple (kernel_texts.text_id)
--   op_type VARCHAR: their op type
--   core_type VARCHAR: their core type
--   flops BIGINT: as kernel_work's, for each counted kernel of the tuple
--   bytes BIGINT: likewise
--   flops_source VARCHAR: likewise
--   dtype VARCHAR: likewise
ALTER TABLE kernels_raw RENAME TO kernels_raw_full;
CREATE TABLE kernels_raw_ascend_csv (
    run_id        INTEGER NOT NULL,
    seq           BIGINT NOT NULL,
    start_ns      BIGINT NOT NULL,
    dur_ns        BIGINT NOT NULL,
    name          VARCHAR,
    op_type       VARCHAR,
    kind          VARCHAR,
    core_type     VARCHAR,
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
    metrics       DOUBLE[],
    dup           VARCHAR,
    text_id       INTEGER
);
ALTER TABLE kernel_work RENAME TO kernel_work_rows;
CREATE TABLE kernel_work_tuples (
    run_id        INTEGER NOT NULL,
    text_id       INTEGER NOT NULL,
    op_type       VARCHAR,
    core_type     VARCHAR,
    flops         BIGINT,
    bytes         BIGINT,
    flops_source  VARCHAR,
    dtype         VARCHAR
);
