-- The records of a rocpd database copied by ingest_rocpd_tables, resolved whatever their layout: start and
-- end ns from the row, else from rocpd_timestamp (start_id, end_id); agent, queue and thread from the row,
-- else from its rocpd_track; names through rocpd_string; correlation ids and categories from rocpd_event.
-- rocprofv3 stores a record's internal correlation id (the one that links a launch to its kernel) as
-- rocpd_event.stack_id and its external one as rocpd_event.correlation_id (rocprofiler-sdk,
-- source/lib/output/generateRocpd.cpp); a file without stack_id gives correlation_id instead. A ROCTx
-- region is named by its message (rocpd_event.extdata, key message), else by its operation.
-- A GPU's device id is its agent's type_index (the index among the node's GPUs, as rocprofv3's JSON output
-- numbers GPUs), else its position among the GPU agents by absolute_index. A kernel's name is its symbol's
-- formatted_kernel_name (in the symbol's extdata JSON, demangled, as the JSON output gives it), else
-- display_name, else kernel_name. pid and tid are rocpd_info_process.pid / rocpd_info_thread.tid of the
-- row ids the records name (the foreign keys of rocpd_tables.sql), else the values as written.
-- Inputs: the TEMP tables of ingest_rocpd_tables (dropped here).
-- Parameters: none.
-- Output: TEMP _rpd_kernels (one row per kernel dispatch: idx, start_ns, end_ns, agent_id, is_gpu,
--   device_id, device_name, name, stream_id, correlation_id, external_id, grid, block, shared_mem_bytes),
--   _rpd_memcpy (one row per memory copy: idx, start_ns, end_ns, name, device_id, correlation_id,
--   external_id) and _rpd_host (one row per region: idx, category, name, pid, tid, start_ns, end_ns,
--   correlation_id, external_id); idx is the record's row id.
--   Read by ingest_rocpd_check and ingest_rocpd_insert, which drops them.
CREATE OR REPLACE TEMP TABLE _rpd_gpus AS
SELECT id AS agent_id, upper("type") = 'GPU' AS is_gpu,
       CASE WHEN upper("type") = 'GPU' THEN coalesce(type_index, row_number() OVER (
           PARTITION BY upper("type") = 'GPU' ORDER BY absolute_index, id) - 1) END::INTEGER AS device_id,
       coalesce(nullif(product_name, ''), nullif(model_name, ''), nullif("name", '')) AS device_name
FROM _rpd_agents;
CREATE OR REPLACE TEMP TABLE _rpd_kernels AS
SELECT d.id AS idx, coalesce(d."start", s."value") AS start_ns, coalesce(d."end", e."value") AS end_ns,
       coalesce(d.agent_id, t.agent_id) AS agent_id, g.is_gpu, g.device_id, g.device_name,
       coalesce(nullif(json_extract_string(CASE WHEN json_valid(y.extdata) THEN y.extdata END,
                                                '$.formatted_kernel_name'), ''), nullif(y.display_name, ''),
                y.kernel_name) AS name,
       coalesce(d.queue_id, t.queue_id) AS stream_id,
       CASE WHEN ev.stack_id IS NOT NULL THEN ev.stack_id ELSE ev.correlation_id END AS correlation_id,
       CASE WHEN ev.stack_id IS NOT NULL THEN nullif(ev.correlation_id, 0) END AS external_id,
       CASE WHEN d.grid_size_x IS NOT NULL THEN [d.grid_size_x, d.grid_size_y, d.grid_size_z]::INTEGER[] END AS grid,
       CASE WHEN d.workgroup_size_x IS NOT NULL
            THEN [d.workgroup_size_x, d.workgroup_size_y, d.workgroup_size_z]::INTEGER[] END AS block,
       d.group_segment_size AS shared_mem_bytes, y.id IS NOT NULL AS has_symbol, d.kernel_id
FROM _rpd_dispatch d
LEFT JOIN _rpd_tracks t ON t.id = d.track_id
LEFT JOIN _rpd_stamps s ON s.id = d.start_id
LEFT JOIN _rpd_stamps e ON e.id = d.end_id
LEFT JOIN _rpd_gpus g ON g.agent_id = coalesce(d.agent_id, t.agent_id)
LEFT JOIN _rpd_symbols y ON y.id = d.kernel_id
LEFT JOIN _rpd_events ev ON ev.id = d.event_id;
CREATE OR REPLACE TEMP TABLE _rpd_memcpy AS
SELECT c.id AS idx, coalesce(c."start", s."value") AS start_ns, coalesce(c."end", e."value") AS end_ns,
       coalesce(n.string, 'MEMORY_COPY') AS name,
       CASE WHEN dst.is_gpu THEN dst.device_id WHEN src.is_gpu THEN src.device_id END AS device_id,
       CASE WHEN ev.stack_id IS NOT NULL THEN ev.stack_id ELSE ev.correlation_id END AS correlation_id,
       CASE WHEN ev.stack_id IS NOT NULL THEN nullif(ev.correlation_id, 0) END AS external_id
FROM _rpd_copies c
LEFT JOIN _rpd_stamps s ON s.id = c.start_id
LEFT JOIN _rpd_stamps e ON e.id = c.end_id
LEFT JOIN _rpd_strings n ON n.id = c.name_id
LEFT JOIN _rpd_gpus dst ON dst.agent_id = c.dst_agent_id
LEFT JOIN _rpd_gpus src ON src.agent_id = c.src_agent_id
LEFT JOIN _rpd_events ev ON ev.id = c.event_id;
CREATE OR REPLACE TEMP TABLE _rpd_host AS
SELECT r.id AS idx, cat.string AS category,
       coalesce(nullif(json_extract_string(CASE WHEN json_valid(ev.extdata) THEN ev.extdata END, '$.message'), ''),
                n.string) AS name,
       coalesce(p.pid, r.pid, t.pid)::VARCHAR AS pid, coalesce(th.tid, r.tid, t.tid)::VARCHAR AS tid,
       coalesce(r."start", s."value") AS start_ns, coalesce(r."end", e."value") AS end_ns,
       CASE WHEN ev.stack_id IS NOT NULL THEN ev.stack_id ELSE ev.correlation_id END AS correlation_id,
       CASE WHEN ev.stack_id IS NOT NULL THEN nullif(ev.correlation_id, 0) END AS external_id
FROM _rpd_regions r
LEFT JOIN _rpd_tracks t ON t.id = r.track_id
LEFT JOIN _rpd_stamps s ON s.id = r.start_id
LEFT JOIN _rpd_stamps e ON e.id = r.end_id
LEFT JOIN _rpd_strings n ON n.id = r.name_id
LEFT JOIN _rpd_events ev ON ev.id = r.event_id
LEFT JOIN _rpd_strings cat ON cat.id = ev.category_id
LEFT JOIN _rpd_processes p ON p.id = coalesce(r.pid, t.pid)
LEFT JOIN _rpd_threads th ON th.id = coalesce(r.tid, t.tid);
DROP TABLE _rpd_gpus;
DROP TABLE _rpd_strings;
DROP TABLE _rpd_agents;
DROP TABLE _rpd_processes;
DROP TABLE _rpd_threads;
DROP TABLE _rpd_symbols;
DROP TABLE _rpd_events;
DROP TABLE _rpd_tracks;
DROP TABLE _rpd_stamps;
DROP TABLE _rpd_dispatch;
DROP TABLE _rpd_copies;
DROP TABLE _rpd_regions;
