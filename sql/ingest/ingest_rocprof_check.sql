-- The first problem of a rocprofv3 document read by ingest_rocprof_read (by tool entry, list, index): a
-- kernel dispatch, memory copy or HIP API call without a start or end or ending before it starts, or a
-- dispatch naming a kernel_id that `kernel_symbols` does not list or an agent that `agents` does not list
-- as a GPU. No row: the records are consistent.
-- Inputs: TEMP _rocprof_tools, _rocprof_gpus, _rocprof_dispatch, _rocprof_copies, _rocprof_hip.
-- Parameters: none.
-- Output: at most one row of four columns (the tiny traces of tests/test_sql_headers.py are not rocprofv3
--   documents; tests/test_rocprof.py reads each): tool BIGINT, the position of the rocprofiler-sdk-tool
--   entry, 1-based; records VARCHAR, kernel_dispatch, memory_copy or hip_api; idx BIGINT, the index of the record
--   in its list, 0-based; problem VARCHAR, what is wrong with it.
WITH symbols AS (
    SELECT tool, unnest(kernel_symbols).kernel_id AS kernel_id FROM _rocprof_tools
), records AS (
    SELECT tool, 'kernel_dispatch' AS records, idx, r IS NULL AS missing, r.start_timestamp AS s,
           r.end_timestamp AS e, r.dispatch_info.kernel_id AS kernel_id, r.dispatch_info.agent_id.handle AS agent
    FROM _rocprof_dispatch
    UNION ALL
    SELECT tool, 'memory_copy', idx, r IS NULL, r.start_timestamp, r.end_timestamp, NULL, NULL FROM _rocprof_copies
    UNION ALL
    SELECT tool, 'hip_api', idx, r IS NULL, r.start_timestamp, r.end_timestamp, NULL, NULL FROM _rocprof_hip
), problems AS (
    SELECT tool, records, idx, CASE
        WHEN missing THEN 'is null'
        WHEN s IS NULL OR e IS NULL THEN 'has no start_timestamp or end_timestamp'
        WHEN e < s THEN format('ends before it starts (start_timestamp {}, end_timestamp {})', s, e)
        WHEN records <> 'kernel_dispatch' THEN NULL
        WHEN kernel_id IS NULL THEN 'has no dispatch_info.kernel_id'
        WHEN agent IS NULL THEN 'has no dispatch_info.agent_id'
        WHEN NOT EXISTS (SELECT 1 FROM symbols y WHERE y.tool = d.tool AND y.kernel_id = d.kernel_id)
            THEN format('has kernel_id {}, which kernel_symbols does not list', kernel_id)
        WHEN NOT EXISTS (SELECT 1 FROM _rocprof_gpus g WHERE g.tool = d.tool AND g.handle = d.agent)
            THEN format('has agent_id {}, which agents does not list as a GPU (type 2)', agent)
        END AS problem
    FROM records d
)
SELECT tool, records, idx, problem FROM problems WHERE problem IS NOT NULL
ORDER BY tool, records, idx LIMIT 1;
