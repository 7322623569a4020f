-- The device rows of one run of a rocprofv3 document, in file order: every kernel dispatch (kind
-- 'kernel') and memory copy (kind 'memcpy') of the GPU agent $device (or of every GPU agent when NULL),
-- with exact integer ns. A dispatch is named by its kernel symbol's formatted_kernel_name (demangled,
-- without the `.kd` suffix), else its kernel_name. A copy is named after its operation
-- (`MEMORY_COPY_HOST_TO_DEVICE`, from `strings.buffer_records`) and belongs to its destination agent when
-- that is a GPU, else its source.
-- device_id is the GPU's index among the GPU agents (logical_node_type_id). Every HIP API call of the
-- process becomes a host event of the run (trace_events, category cuda_runtime as Kineto's ROCm traces
-- write it; name from `strings.buffer_records[kind].operations[operation]`), linked to its kernels by the
-- internal correlation id.
-- Inputs: TEMP _rocprof_tools, _rocprof_gpus, _rocprof_dispatch, _rocprof_copies, _rocprof_hip (dropped at the
--   end), checked by ingest_rocprof_check (every time a JSON integer from 0 to ingest/rocprof.py MAX_NS, cast
--   here).
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $device INTEGER: the GPU index of the run's agent, NULL for every GPU agent
-- Output: kernels_raw_full rows of the run (seq and dup left to ingest_finish), trace_events rows (host events).
INSERT INTO kernels_raw_full (run_id, seq, start_ns, dur_ns, name, kind, device_id, stream_id, correlation_id,
                         external_id, grid, block, shared_mem_bytes)
WITH symbols AS (   -- a kernel_id listed twice: its first symbol
    SELECT tool, s.kernel_id, coalesce(nullif(s.formatted_kernel_name, ''), s.kernel_name) AS name
    FROM (SELECT tool, unnest(kernel_symbols) AS s, unnest(generate_series(1, len(kernel_symbols))) AS pos
          FROM _rocprof_tools)
    QUALIFY row_number() OVER (PARTITION BY tool, s.kernel_id ORDER BY pos) = 1
), copy_ops AS (
    SELECT tool, list_filter(strings.buffer_records, lambda k: k.kind = 'MEMORY_COPY')[1].operations AS ops
    FROM _rocprof_tools
), rows AS (
    SELECT d.tool, 0 AS part, d.idx, d.r.start_timestamp::BIGINT AS start_ns,
           d.r.end_timestamp::BIGINT - d.r.start_timestamp::BIGINT AS dur_ns,
           s.name, 'kernel' AS kind, g.device_id, d.r.dispatch_info.queue_id.handle AS stream_id,
           d.r.correlation_id.internal AS correlation_id, nullif(d.r.correlation_id."external", 0) AS external_id,
           [d.r.dispatch_info.grid_size.x, d.r.dispatch_info.grid_size.y, d.r.dispatch_info.grid_size.z] AS grid,
           [d.r.dispatch_info.workgroup_size.x, d.r.dispatch_info.workgroup_size.y,
            d.r.dispatch_info.workgroup_size.z] AS block,
           d.r.dispatch_info.group_segment_size AS shared_mem_bytes
    FROM _rocprof_dispatch d
    JOIN _rocprof_gpus g ON g.tool = d.tool AND g.handle = d.r.dispatch_info.agent_id.handle
    JOIN symbols s ON s.tool = d.tool AND s.kernel_id = d.r.dispatch_info.kernel_id
    UNION ALL
    SELECT c.tool, 1, c.idx, c.r.start_timestamp::BIGINT, c.r.end_timestamp::BIGINT - c.r.start_timestamp::BIGINT,
           coalesce(o.ops[c.r.operation + 1], format('MEMORY_COPY operation {}', c.r.operation)), 'memcpy',
           coalesce(dst.device_id, src.device_id), NULL, c.r.correlation_id.internal,
           nullif(c.r.correlation_id."external", 0), NULL, NULL, NULL
    FROM _rocprof_copies c
    LEFT JOIN copy_ops o ON o.tool = c.tool
    LEFT JOIN _rocprof_gpus dst ON dst.tool = c.tool AND dst.handle = c.r.dst_agent_id.handle
    LEFT JOIN _rocprof_gpus src ON src.tool = c.tool AND src.handle = c.r.src_agent_id.handle
    WHERE dst.device_id IS NOT NULL OR src.device_id IS NOT NULL
)
SELECT $run_id, 0, start_ns, dur_ns, name, kind, device_id, stream_id, correlation_id, external_id, grid, block,
       shared_mem_bytes
FROM rows
WHERE $device IS NULL OR device_id = $device
ORDER BY tool, part, idx;
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id, external_id)
SELECT $run_id, row_number() OVER (ORDER BY h.tool, h.idx), 'X', NULL, 'cuda_runtime',
       coalesce(t.strings.buffer_records[h.r.kind + 1].operations[h.r.operation + 1],
                format('HIP API {}.{}', h.r.kind, h.r.operation)),
       t.metadata.pid::VARCHAR, h.r.thread_id::VARCHAR, h.r.start_timestamp::BIGINT,
       h.r.end_timestamp::BIGINT - h.r.start_timestamp::BIGINT,
       h.r.correlation_id.internal, nullif(h.r.correlation_id."external", 0)
FROM _rocprof_hip h JOIN _rocprof_tools t USING (tool)
ORDER BY h.tool, h.idx;
DROP TABLE _rocprof_gpus;
DROP TABLE _rocprof_tools;
DROP TABLE _rocprof_dispatch;
DROP TABLE _rocprof_copies;
DROP TABLE _rocprof_hip;
