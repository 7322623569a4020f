-- The rows of one run of a rocpd database, in record order: every kernel dispatch (kind 'kernel') and
-- memory copy (kind 'memcpy', on its destination agent when that is a GPU, else its source) of the GPU
-- $device (or of every GPU when NULL), with exact integer ns; the process's HIP API regions (category
-- HIP_..., stored as cuda_runtime, as Kineto's ROCm traces write them) and ROCTx regions (category MARKER_...,
-- stored as user_annotation; regions named after a ROCTx function, roctxRangePop and the like, left out)
-- become host events of the run, linked to their kernels by correlation id. A ROCTx region is named by its
-- message (ingest_rocpd_resolve); one named after a ROCTx function has none and is left out.
-- Inputs: TEMP _rpd_kernels, _rpd_memcpy, _rpd_host (dropped at the end), checked by ingest_rocpd_check.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $device INTEGER: the GPU index of the run, NULL for every GPU
-- Output: kernels_raw_full rows of the run (seq and dup left to ingest_finish), trace_events rows (host events).
INSERT INTO kernels_raw_full (run_id, seq, start_ns, dur_ns, name, kind, device_id, stream_id, correlation_id,
                         external_id, grid, block, shared_mem_bytes)
SELECT $run_id, 0, start_ns, end_ns - start_ns, name, kind, device_id, stream_id, correlation_id, external_id,
       grid, block, shared_mem_bytes
FROM (
    SELECT 0 AS part, idx, start_ns, end_ns, name, 'kernel' AS kind, device_id, stream_id, correlation_id,
           external_id, grid, block, shared_mem_bytes
    FROM _rpd_kernels
    UNION ALL
    SELECT 1, idx, start_ns, end_ns, name, 'memcpy', device_id, NULL, correlation_id, external_id, NULL, NULL,
           NULL
    FROM _rpd_memcpy WHERE device_id IS NOT NULL
)
WHERE $device IS NULL OR device_id = $device
ORDER BY part, idx;
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id, external_id)
SELECT $run_id, row_number() OVER (ORDER BY idx), 'X', NULL,
       CASE WHEN starts_with(category, 'HIP_') THEN 'cuda_runtime' ELSE 'user_annotation' END, name, pid, tid,
       start_ns, end_ns - start_ns, correlation_id, external_id
FROM _rpd_host
WHERE starts_with(category, 'HIP_')
   OR (starts_with(category, 'MARKER_') AND NOT starts_with(coalesce(name, ''), 'roctx'))
ORDER BY idx;
DROP TABLE _rpd_kernels;
DROP TABLE _rpd_memcpy;
DROP TABLE _rpd_host;
