-- The TEMP tables a rocpd database (`rocprofv3 --output-format rocpd`) is copied into, one per rocpd table
-- tracedb reads, with the columns tracedb.ingest.rocpd reads from it (in this order; a column the file
-- lacks is NULL, a table it lacks stays empty). The schema is rocprofiler-sdk's
-- source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql (schema_version 3), which exists in two layouts:
-- start and end ns in the rows of kernel dispatches, memory copies and regions, or ids of rocpd_timestamp
-- rows (start_id, end_id) with the agent, queue and thread on a rocpd_track row (track_id). Times are
-- integer ns as written.
-- Inputs: none (tracedb.ingest.rocpd fills the tables through Arrow batches).
-- Parameters: none.
-- Output: TEMP _rpd_strings (rocpd_string), _rpd_agents (rocpd_info_agent), _rpd_processes
--   (rocpd_info_process), _rpd_threads (rocpd_info_thread), _rpd_symbols (rocpd_info_kernel_symbol),
--   _rpd_events (rocpd_event), _rpd_tracks (rocpd_track), _rpd_stamps (rocpd_timestamp), _rpd_dispatch
--   (rocpd_kernel_dispatch), _rpd_copies (rocpd_memory_copy), _rpd_regions (rocpd_region), empty. Read by
--   ingest_rocpd_resolve, which drops them.
CREATE OR REPLACE TEMP TABLE _rpd_strings (id BIGINT, string VARCHAR);
CREATE OR REPLACE TEMP TABLE _rpd_agents (id BIGINT, "type" VARCHAR, absolute_index BIGINT, logical_index BIGINT,
    type_index BIGINT, "name" VARCHAR, product_name VARCHAR, model_name VARCHAR);
CREATE OR REPLACE TEMP TABLE _rpd_processes (id BIGINT, pid BIGINT);
CREATE OR REPLACE TEMP TABLE _rpd_threads (id BIGINT, tid BIGINT);
CREATE OR REPLACE TEMP TABLE _rpd_symbols (id BIGINT, kernel_name VARCHAR, display_name VARCHAR, extdata VARCHAR);
CREATE OR REPLACE TEMP TABLE _rpd_events (id BIGINT, category_id BIGINT, stack_id BIGINT, correlation_id BIGINT,
    extdata VARCHAR);
CREATE OR REPLACE TEMP TABLE _rpd_tracks (id BIGINT, pid BIGINT, tid BIGINT, agent_id BIGINT, queue_id BIGINT,
    stream_id BIGINT);
CREATE OR REPLACE TEMP TABLE _rpd_stamps (id BIGINT, "value" BIGINT);
CREATE OR REPLACE TEMP TABLE _rpd_dispatch (id BIGINT, kernel_id BIGINT, pid BIGINT, tid BIGINT, agent_id BIGINT,
    queue_id BIGINT, stream_id BIGINT, "start" BIGINT, "end" BIGINT, track_id BIGINT, start_id BIGINT,
    end_id BIGINT, event_id BIGINT, group_segment_size BIGINT, workgroup_size_x BIGINT, workgroup_size_y BIGINT,
    workgroup_size_z BIGINT, grid_size_x BIGINT, grid_size_y BIGINT, grid_size_z BIGINT);
CREATE OR REPLACE TEMP TABLE _rpd_copies (id BIGINT, name_id BIGINT, pid BIGINT, tid BIGINT, "start" BIGINT,
    "end" BIGINT, track_id BIGINT, start_id BIGINT, end_id BIGINT, dst_agent_id BIGINT, src_agent_id BIGINT,
    queue_id BIGINT, event_id BIGINT);
CREATE OR REPLACE TEMP TABLE _rpd_regions (id BIGINT, name_id BIGINT, pid BIGINT, tid BIGINT, "start" BIGINT,
    "end" BIGINT, track_id BIGINT, start_id BIGINT, end_id BIGINT, event_id BIGINT);
