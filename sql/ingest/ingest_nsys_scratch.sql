-- The scratch tables an Nsight Systems SQLite export is copied into (ingest/nsys.py fills them in Arrow
-- batches from the export's tables, its columns mapped by name through ingest/nsys.py COLUMNS; a column the
-- export lacks is NULL). Every time is the export's integer ns; ord is a row's position in its table.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _nsys_strings (StringIds: id, value), TEMP _nsys_gpus (TARGET_INFO_GPU or
--   TARGET_INFO_CUDA_DEVICE: id, the CUDA device id; name), TEMP _nsys_activity (one row per kernel, memcpy
--   and memset: kind, its table's; start_ns, end_ns, device_id, context_id, stream_id, correlation_id,
--   global_pid; name_id into StringIds; launch geometry, registers, static and dynamic
--   shared memory, graph_node_id; bytes, copy_kind of copies), TEMP _nsys_api (CUDA runtime and driver
--   calls: cat, cuda_runtime or cuda_driver; start_ns, end_ns, global_tid, correlation_id, name_id), TEMP
--   _nsys_sync (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: start_ns, end_ns, device_id, stream_id, correlation_id,
--   global_pid, sync_type, event_id, event_sync_id), TEMP _nsys_events (CUPTI_ACTIVITY_KIND_CUDA_EVENT, one row
--   per cudaEventRecord: device_id, stream_id, correlation_id, global_pid, event_id, event_sync_id) and TEMP
--   _nsys_nvtx (NVTX_EVENTS: start_ns, end_ns, event_type, text, text_id, global_tid, domain_id), read by
--   ingest_nsys_check and ingest_nsys_insert, which drops them (but _nsys_gpus, which the reader drops).
CREATE OR REPLACE TEMP TABLE _nsys_strings (id BIGINT, value VARCHAR, ord BIGINT);
CREATE OR REPLACE TEMP TABLE _nsys_gpus (id BIGINT, name VARCHAR, ord BIGINT);
CREATE OR REPLACE TEMP TABLE _nsys_activity (
    kind VARCHAR, ord BIGINT, start_ns BIGINT, end_ns BIGINT, device_id BIGINT, context_id BIGINT, stream_id BIGINT,
    correlation_id BIGINT, global_pid BIGINT, name_id BIGINT, registers BIGINT,
    grid_x BIGINT, grid_y BIGINT, grid_z BIGINT, block_x BIGINT, block_y BIGINT, block_z BIGINT,
    static_smem BIGINT, dynamic_smem BIGINT, graph_node_id BIGINT, bytes BIGINT, copy_kind BIGINT);
CREATE OR REPLACE TEMP TABLE _nsys_api (
    cat VARCHAR, ord BIGINT, start_ns BIGINT, end_ns BIGINT, global_tid BIGINT, correlation_id BIGINT, name_id BIGINT);
CREATE OR REPLACE TEMP TABLE _nsys_sync (
    ord BIGINT, start_ns BIGINT, end_ns BIGINT, device_id BIGINT, stream_id BIGINT, correlation_id BIGINT,
    global_pid BIGINT, sync_type BIGINT, event_id BIGINT, event_sync_id BIGINT);
CREATE OR REPLACE TEMP TABLE _nsys_events (
    ord BIGINT, device_id BIGINT, stream_id BIGINT, correlation_id BIGINT, global_pid BIGINT, event_id BIGINT,
    event_sync_id BIGINT);
CREATE OR REPLACE TEMP TABLE _nsys_nvtx (
    ord BIGINT, start_ns BIGINT, end_ns BIGINT, event_type BIGINT, text VARCHAR, text_id BIGINT, global_tid BIGINT,
    domain_id BIGINT);
