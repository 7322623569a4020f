-- Schema v8 -> v9: the work of each kernel, from the trace's own shapes and dtypes. kernel_work holds, per
-- counted kernel whose shapes tracedb can read, the floating-point operations and the bytes its formula
-- gives and the formula's name; kernel_layers (views.sql) shows them. A Kineto trace's `Input Dims` and
-- `Input type` are kept on the cpu_ops that launched kernels (trace_events.extra_args, keys dims and types).
-- Inputs: a v8 store.
-- Parameters: none.
-- Output: TABLE kernel_work, one row per counted kernel with a known formula (filled at ingest, and for the
--   runs already stored when a store is migrated):
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   flops BIGINT: floating-point operations (a multiply-add is 2), exact; NULL when only bytes are known (or
--     beyond BIGINT: never rounded)
--   bytes BIGINT: bytes the formula says the kernel reads and writes at least, exact; NULL when unknown
--   flops_source VARCHAR: the formula that gave them (gemm 2MNK, attention causal ..., memory r+w, ...)
--   dtype VARCHAR: the data type the work is done in (its first input's: bf16, fp16, fp32, fp8, int8, ...),
--     which picks the device's peak
CREATE TABLE kernel_work (
    run_id        INTEGER NOT NULL,
    seq           BIGINT NOT NULL,
    flops         BIGINT,
    bytes         BIGINT,
    flops_source  VARCHAR,
    dtype         VARCHAR
);
