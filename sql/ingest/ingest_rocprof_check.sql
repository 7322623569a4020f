-- The first problem of a rocprofv3 document read by ingest_rocprof_read (by tool entry, list, index): a
-- kernel dispatch, memory copy or HIP API call without a start or end, with a time that is no integer ns
-- (1.5, "1", true: the reader keeps times as JSON, as written), out of 0..$max_ns, or ending before it starts,
-- or a dispatch naming a kernel_id that `kernel_symbols` does not list or an agent that `agents` does not list
-- as a GPU. No row: the records are consistent.
-- Inputs: TEMP _rocprof_tools, _rocprof_gpus, _rocprof_dispatch, _rocprof_copies, _rocprof_hip.
-- Parameters:
--   $max_ns BIGINT: the latest time taken, in ns (ingest/rocprof.py MAX_NS)
-- Output: at most one row of four columns (the tiny traces of tests/test_sql_headers.py are not rocprofv3
--   documents; tests/test_rocprof.py reads each): tool BIGINT, the position of the rocprofiler-sdk-tool
--   entry, 1-based; records VARCHAR, kernel_dispatch, memory_copy or hip_api; idx BIGINT, the index of the record
--   in its list, 0-based; problem VARCHAR, what is wrong with it.
WITH symbols AS (
    SELECT tool, unnest(kernel_symbols).kernel_id AS kernel_id FROM _rocprof_tools
), records AS (
    SELECT tool, 'kernel_dispatch' AS records, idx, r IS NULL AS missing, r.start_timestamp AS sj,
           r.end_timestamp AS ej, r.dispatch_info.kernel_id AS kernel_id, r.dispatch_info.agent_id.handle AS agent
    FROM _rocprof_dispatch
    UNION ALL
    SELECT tool, 'memory_copy', idx, r IS NULL, r.start_timestamp, r.end_timestamp, NULL, NULL FROM _rocprof_copies
    UNION ALL
    SELECT tool, 'hip_api', idx, r IS NULL, r.start_timestamp, r.end_timestamp, NULL, NULL FROM _rocprof_hip
), typed AS (      -- a time written as a JSON integer, as BIGINT (NULL for any other value, or past 64 bits),
    -- and what any other value is
    SELECT *,
        CASE WHEN json_type(sj) IN ('BIGINT', 'UBIGINT') THEN TRY_CAST(sj AS BIGINT) END AS s,
        CASE WHEN json_type(ej) IN ('BIGINT', 'UBIGINT') THEN TRY_CAST(ej AS BIGINT) END AS e,
        CASE WHEN json_type(sj) = 'DOUBLE' AND regexp_full_match(sj, '-?[0-9]+') THEN 'an integer past 64 bits'
             WHEN json_type(sj) = 'DOUBLE' THEN 'a fraction or exponent' WHEN json_type(sj) = 'VARCHAR' THEN 'a string'
             WHEN json_type(sj) = 'BOOLEAN' THEN 'a boolean' ELSE 'an ' || lower(json_type(sj)) END AS s_kind,
        CASE WHEN json_type(ej) = 'DOUBLE' AND regexp_full_match(ej, '-?[0-9]+') THEN 'an integer past 64 bits'
             WHEN json_type(ej) = 'DOUBLE' THEN 'a fraction or exponent' WHEN json_type(ej) = 'VARCHAR' THEN 'a string'
             WHEN json_type(ej) = 'BOOLEAN' THEN 'a boolean' ELSE 'an ' || lower(json_type(ej)) END AS e_kind
    FROM records
), problems AS (
    SELECT tool, records, idx, CASE
        WHEN missing THEN 'is null'
        WHEN sj IS NULL OR ej IS NULL THEN 'has no start_timestamp or end_timestamp'
        WHEN json_type(sj) NOT IN ('BIGINT', 'UBIGINT')
            THEN format('has start_timestamp {} ({}): a field of another type than rocprofv3 writes',
                        left(sj, 40), s_kind)
        WHEN json_type(ej) NOT IN ('BIGINT', 'UBIGINT')
            THEN format('has end_timestamp {} ({}): a field of another type than rocprofv3 writes',
                        left(ej, 40), e_kind)
        WHEN s IS NULL OR e IS NULL OR s < 0 OR e > $max_ns
            THEN format('has start_timestamp {} and end_timestamp {}: out of range', left(sj, 40), left(ej, 40))
        WHEN e < s THEN format('ends before it starts (start_timestamp {}, end_timestamp {})', s, e)
        WHEN records <> 'kernel_dispatch' THEN NULL
        WHEN kernel_id IS NULL THEN 'has no dispatch_info.kernel_id'
        WHEN agent IS NULL THEN 'has no dispatch_info.agent_id'
        WHEN NOT EXISTS (SELECT 1 FROM symbols y WHERE y.tool = d.tool AND y.kernel_id = d.kernel_id)
            THEN format('has kernel_id {}, which kernel_symbols does not list', kernel_id)
        WHEN NOT EXISTS (SELECT 1 FROM _rocprof_gpus g WHERE g.tool = d.tool AND g.handle = d.agent)
            THEN format('has agent_id {}, which agents does not list as a GPU (type 2)', agent)
        END AS problem
    FROM typed d
)
SELECT tool, records, idx, problem FROM problems WHERE problem IS NOT NULL
ORDER BY tool, records, idx LIMIT 1;
