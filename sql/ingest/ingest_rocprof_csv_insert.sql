-- The rows of one run of a rocprofv3 CSV capture, in file order: every kernel dispatch of the kernel
-- trace (kind 'kernel') and every memory copy of the copy trace (kind 'memcpy') of the GPU $device (or of
-- every GPU when NULL), with the exact integer ns of the files; the HIP API calls (category cuda_runtime,
-- as Kineto's ROCm traces write them) and ROCTx ranges (category user_annotation) of the process become
-- host events of the run. A dispatch keeps Kernel_Name as written (rocprofv3 writes the demangled name), its
-- Queue_Id as stream_id, Correlation_Id, the grid (Grid_Size, in work-items, HSA's convention) and the
-- workgroup as block, and as shared memory Group_Segment_Size (before ROCm 7) or LDS_Block_Size. A copy is
-- named after its Direction (MEMORY_COPY_HOST_TO_DEVICE) and belongs to its destination agent when that
-- is a GPU, else its source. Marker rows named after a ROCTx function (roctxRangePop, ...) are the ends
-- of ranges and are left out.
-- Inputs: TEMP _rcsv_rows, _rcsv_devices (dropped at the end), checked by ingest_rocprof_csv_check.
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $device INTEGER: the GPU index of the run, NULL for every GPU
-- Output: kernels_raw_full rows of the run (seq and dup left to ingest_finish), trace_events rows (host events).
INSERT INTO kernels_raw_full (run_id, seq, start_ns, dur_ns, name, kind, device_id, stream_id, correlation_id,
                         grid, block, shared_mem_bytes)
WITH kernels AS (
    SELECT 0 AS part_ord, r."row", trim(r.start_ts)::BIGINT AS start_ns,
           trim(r.end_ts)::BIGINT - trim(r.start_ts)::BIGINT AS dur_ns, r.kernel_name AS name, 'kernel' AS kind,
           d.device_id, TRY_CAST(trim(r.queue_id) AS BIGINT) AS stream_id,
           TRY_CAST(trim(r.correlation_id) AS BIGINT) AS correlation_id,
           CASE WHEN r.grid_x IS NOT NULL THEN [TRY_CAST(trim(r.grid_x) AS INTEGER),
                TRY_CAST(trim(r.grid_y) AS INTEGER), TRY_CAST(trim(r.grid_z) AS INTEGER)] END AS grid,
           CASE WHEN r.wg_x IS NOT NULL THEN [TRY_CAST(trim(r.wg_x) AS INTEGER), TRY_CAST(trim(r.wg_y) AS INTEGER),
                                              TRY_CAST(trim(r.wg_z) AS INTEGER)] END AS block,
           TRY_CAST(trim(r.lds_bytes) AS BIGINT) AS shared_mem_bytes
    FROM _rcsv_rows r JOIN _rcsv_devices d ON d.agent = r.agent
    WHERE r.part = 'kernel_trace'
), copies AS (
    SELECT 1 AS part_ord, r."row", trim(r.start_ts)::BIGINT AS start_ns,
           trim(r.end_ts)::BIGINT - trim(r.start_ts)::BIGINT AS dur_ns,
           coalesce(nullif(trim(r.direction), ''), 'MEMORY_COPY') AS name, 'memcpy' AS kind,
           CASE WHEN dst.is_gpu THEN dst.device_id ELSE src.device_id END AS device_id, NULL::BIGINT AS stream_id,
           TRY_CAST(trim(r.correlation_id) AS BIGINT) AS correlation_id, NULL::INTEGER[] AS grid,
           NULL::INTEGER[] AS block, NULL::BIGINT AS shared_mem_bytes
    FROM _rcsv_rows r
    LEFT JOIN _rcsv_devices dst ON dst.agent = r.dst_agent
    LEFT JOIN _rcsv_devices src ON src.agent = r.src_agent
    WHERE r.part = 'memory_copy_trace' AND (dst.is_gpu OR src.is_gpu)
)
SELECT $run_id, 0, start_ns, dur_ns, name, kind, device_id, stream_id, correlation_id, grid, block, shared_mem_bytes
FROM (SELECT * FROM kernels UNION ALL SELECT * FROM copies)
WHERE $device IS NULL OR device_id = $device
ORDER BY part_ord, "row";
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id, external_id)
SELECT $run_id, row_number() OVER (ORDER BY part, "row"), 'X', NULL,
       CASE part WHEN 'hip_api_trace' THEN 'cuda_runtime' ELSE 'user_annotation' END, "function",
       trim(process_id), trim(thread_id), trim(start_ts)::BIGINT, trim(end_ts)::BIGINT - trim(start_ts)::BIGINT,
       TRY_CAST(trim(correlation_id) AS BIGINT), NULL
FROM _rcsv_rows
WHERE part = 'hip_api_trace' OR (part = 'marker_api_trace' AND NOT starts_with(coalesce("function", ''), 'roctx'))
ORDER BY part, "row";
DROP TABLE _rcsv_rows;
DROP TABLE _rcsv_devices;
