-- The staging table of one rocprofv3 CSV capture (`rocprofv3 --output-format csv`): every row of its kernel
-- trace and of the files beside it (agent info, memory copies, HIP and marker API calls), each value the
-- text the file holds. ingest_rocprof_csv_append fills it one file at a time, by column name: the columns
-- a file (or a version of rocprofv3) does not write stay NULL.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _rcsv_rows, one row per data row of each file: part, which file (kernel_trace,
--   memory_copy_trace, hip_api_trace, marker_api_trace, agent_info); row, the data row's position in its
--   file (1-based, file order); then one VARCHAR column per field tracedb reads (kernel trace: kind, agent,
--   queue_id, stream_id, thread_id, dispatch_id, kernel_id, kernel_name, correlation_id, start_ts, end_ts,
--   lds_bytes, scratch_bytes, wg_x/y/z, grid_x/y/z; copies: direction, src_agent, dst_agent; API
--   calls: domain, function, process_id; agents: node_id, logical_node_id, agent_type, agent_name, product_name).
CREATE OR REPLACE TEMP TABLE _rcsv_rows (
    part VARCHAR, "row" BIGINT,
    kind VARCHAR, agent VARCHAR, queue_id VARCHAR, stream_id VARCHAR, thread_id VARCHAR, dispatch_id VARCHAR,
    kernel_id VARCHAR, kernel_name VARCHAR, correlation_id VARCHAR, start_ts VARCHAR, end_ts VARCHAR,
    lds_bytes VARCHAR, scratch_bytes VARCHAR, wg_x VARCHAR, wg_y VARCHAR, wg_z VARCHAR,
    grid_x VARCHAR, grid_y VARCHAR, grid_z VARCHAR,
    direction VARCHAR, src_agent VARCHAR, dst_agent VARCHAR,
    "domain" VARCHAR, "function" VARCHAR, process_id VARCHAR,
    node_id VARCHAR, logical_node_id VARCHAR, agent_type VARCHAR, agent_name VARCHAR, product_name VARCHAR
);
