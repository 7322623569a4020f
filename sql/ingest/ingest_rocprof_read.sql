-- Read a rocprofv3 JSON document (`rocprofv3 --output-format json`, rocprofiler-sdk-tool) with DuckDB's
-- JSON reader and an explicit schema: only the keys tracedb uses are materialised (agents, kernel
-- symbols, kernel dispatches, memory copies, HIP API calls, the names of operations, the pid); the reader
-- skips every other key. The document is one JSON object, so the reader holds all of it at once
-- ($max_bytes bounds it). Timestamps are read as JSON, as written, so that ingest_rocprof_check refuses 1.5,
-- "1" or true where rocprofv3 writes integer ns (read as BIGINT, DuckDB would take them as 2, 1 and 1).
-- Inputs: the file at $path (plain or gzip).
-- Parameters:
--   $path VARCHAR: the rocprofv3 JSON file
--   $max_bytes BIGINT: the largest document read (the reader's maximum_object_size)
--   $compression VARCHAR: gzip or none, from the file's first bytes (not its name)
-- Output: TEMP _rocprof_tools, one row per entry of the `rocprofiler-sdk-tool` array (tool, its 1-based
--     position; agents, kernel_symbols, buffer_records, strings, metadata as structs and lists of them),
--     TEMP _rocprof_gpus, one row per GPU agent (tool; handle; device_id, its logical_node_type_id, else
--     its position by node_id; device_name, its product_name), and TEMP _rocprof_dispatch,
--     _rocprof_copies and _rocprof_hip, one row per kernel dispatch / memory copy / HIP API record (tool;
--     idx, its 0-based index in its list; r, the record). Read by ingest_rocprof_check and
--     ingest_rocprof_insert, which drops them.
CREATE OR REPLACE TEMP TABLE _rocprof_tools AS
SELECT row_number() OVER () AS tool, t.agents, t.kernel_symbols, t.buffer_records, t.strings, t.metadata
FROM (
    SELECT unnest(doc."rocprofiler-sdk-tool") AS t
    FROM read_json($path, format = 'unstructured', maximum_object_size = $max_bytes, compression = $compression,
        columns = {
        'rocprofiler-sdk-tool': 'STRUCT(
            agents STRUCT(id STRUCT(handle UBIGINT), "type" INTEGER, node_id INTEGER, logical_node_type_id INTEGER,
                          "name" VARCHAR, product_name VARCHAR, marketing_name VARCHAR)[],
            strings STRUCT(buffer_records STRUCT(kind VARCHAR, operations VARCHAR[])[]),
            kernel_symbols STRUCT(kernel_id UBIGINT, kernel_name VARCHAR, formatted_kernel_name VARCHAR,
                                  truncated_kernel_name VARCHAR)[],
            buffer_records STRUCT(
                kernel_dispatch STRUCT(correlation_id STRUCT(internal UBIGINT, "external" UBIGINT),
                    start_timestamp JSON, end_timestamp JSON,
                    dispatch_info STRUCT(agent_id STRUCT(handle UBIGINT), queue_id STRUCT(handle UBIGINT),
                        kernel_id UBIGINT, dispatch_id UBIGINT, private_segment_size UBIGINT,
                        group_segment_size UBIGINT, workgroup_size STRUCT(x INTEGER, y INTEGER, z INTEGER),
                        grid_size STRUCT(x INTEGER, y INTEGER, z INTEGER)))[],
                memory_copy STRUCT(correlation_id STRUCT(internal UBIGINT, "external" UBIGINT), operation INTEGER,
                    start_timestamp JSON, end_timestamp JSON, dst_agent_id STRUCT(handle UBIGINT),
                    src_agent_id STRUCT(handle UBIGINT), bytes UBIGINT)[],
                hip_api STRUCT(kind INTEGER, operation INTEGER, correlation_id STRUCT(internal UBIGINT,
                    "external" UBIGINT), start_timestamp JSON, end_timestamp JSON, thread_id BIGINT)[]),
            metadata STRUCT(pid BIGINT))[]'}) AS doc
);
CREATE OR REPLACE TEMP TABLE _rocprof_dispatch AS
SELECT tool, unnest(generate_series(0, len(buffer_records.kernel_dispatch) - 1)) AS idx,
       unnest(buffer_records.kernel_dispatch) AS r
FROM _rocprof_tools;
CREATE OR REPLACE TEMP TABLE _rocprof_copies AS
SELECT tool, unnest(generate_series(0, len(buffer_records.memory_copy) - 1)) AS idx,
       unnest(buffer_records.memory_copy) AS r
FROM _rocprof_tools;
CREATE OR REPLACE TEMP TABLE _rocprof_hip AS
SELECT tool, unnest(generate_series(0, len(buffer_records.hip_api) - 1)) AS idx, unnest(buffer_records.hip_api) AS r
FROM _rocprof_tools;
CREATE OR REPLACE TEMP TABLE _rocprof_gpus AS
SELECT tool, a.id.handle AS handle,
       coalesce(a.logical_node_type_id,
                row_number() OVER (PARTITION BY tool ORDER BY a.node_id) - 1)::INTEGER AS device_id,
       coalesce(a.product_name, a.marketing_name, a."name") AS device_name
FROM (SELECT tool, unnest(agents) AS a FROM _rocprof_tools)
WHERE a."type" = 2;
