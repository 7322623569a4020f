-- Schema v11 -> v12: pipeline stages and the profiler's own step breakdown.
-- * A pipeline-parallel job's layers are numbered in the model, not only in their stage, so that a stage-1
--   rank's local layer 0 is compared with model layer 14 of the other stage-1 ranks and never with stage 0's
--   layer 0. Runs segmented before keep NULL in both until `tracedb segment` runs on them again.
-- * The Ascend profiler's breakdown of each step, ASCEND_PROFILER_OUTPUT/step_trace_time.csv, which a rank
--   folder carries beside its kernels or its communication analyses alone. For a rank exported without
--   kernels it is the only account of its computing and free time (report breakdown shows it there, and
--   beside tracedb's own figures where the kernels are). Runs ingested before have no rows until ingested
--   again.
-- Inputs: a v11 store.
-- Parameters: none.
-- Output: TABLE kernel_segments, new columns:
--   pp_stage INTEGER: the run's pipeline stage (sql/segment/pipeline_stage.sql), from 0; NULL when the run
--     is no stage of a pipeline, or the trace does not say which
--   model_layer BIGINT: the layer's number in the model: its stage's first model layer + layer (the layer
--     itself when the run is no pipeline stage); NULL outside a layer
-- Output: TABLE step_times, one row per line of the file (device and step), every time as integer ns (the
--   file's µs read as exact decimals, rounded to the ns); a column the file's layout lacks is NULL; columns
--   as declared below.
ALTER TABLE kernel_segments ADD COLUMN pp_stage INTEGER;
ALTER TABLE kernel_segments ADD COLUMN model_layer BIGINT;
CREATE TABLE step_times (
    run_id        INTEGER NOT NULL, -- the run
    device_id     INTEGER,          -- Device_id as written (-1: the profiler's unnumbered NPU); NULL in layouts without it
    step          BIGINT,           -- Step; NULL when the file leaves it empty (a capture without step marks)
    computing_ns  BIGINT,           -- Computing
    comm_not_overlapped_ns BIGINT,  -- Communication(Not Overlapped)
    overlapped_ns BIGINT,           -- Overlapped
    communication_ns BIGINT,        -- Communication
    free_ns       BIGINT,           -- Free
    stage_ns      BIGINT,           -- Stage: the step's time without its receive ops (pipeline parallel)
    bubble_ns     BIGINT,           -- Bubble: its receive ops' time
    comm_not_overlapped_excl_receive_ns BIGINT,   -- Communication(Not Overlapped and Exclude Receive)
    preparing_ns  BIGINT            -- Preparing: from the step's start to its first device op; NULL in older layouts
);
