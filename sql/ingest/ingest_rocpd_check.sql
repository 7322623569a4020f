-- The first problem of a rocpd database resolved by ingest_rocpd_resolve (by table and row id): a kernel
-- dispatch, memory copy or region without a start or end, or ending before it starts; a dispatch whose
-- kernel rocpd_info_kernel_symbol does not list, or whose agent rocpd_info_agent does not list as a GPU.
-- No row: the records are consistent.
-- Inputs: TEMP _rpd_kernels, _rpd_memcpy, _rpd_host.
-- Parameters: none.
-- Output: at most one row of three columns (the tiny traces of tests/test_sql_headers.py are not rocpd
--   databases; tests/test_rocpd.py reads each): records VARCHAR, the rocpd table; idx BIGINT, the record's
--   id; problem VARCHAR, what is wrong with it.
WITH records AS (
    SELECT 0 AS ord, 'rocpd_kernel_dispatch' AS records, idx, start_ns AS s, end_ns AS e, has_symbol, kernel_id,
           agent_id, is_gpu
    FROM _rpd_kernels
    UNION ALL
    SELECT 1, 'rocpd_memory_copy', idx, start_ns, end_ns, true, NULL, NULL, true FROM _rpd_memcpy
    UNION ALL
    SELECT 2, 'rocpd_region', idx, start_ns, end_ns, true, NULL, NULL, true FROM _rpd_host
), problems AS (
    SELECT ord, records, idx, CASE
        WHEN s IS NULL OR e IS NULL THEN 'has no start or end timestamp'
        WHEN e < s THEN format('ends before it starts (start {}, end {})', s, e)
        WHEN NOT has_symbol THEN format('has kernel_id {}, which rocpd_info_kernel_symbol does not list', kernel_id)
        WHEN NOT coalesce(is_gpu, false) THEN format('has agent {}, which rocpd_info_agent does not list as a GPU',
                                                     coalesce(agent_id::VARCHAR, 'NULL'))
        END AS problem
    FROM records
)
SELECT records, idx, problem FROM problems WHERE problem IS NOT NULL ORDER BY ord, idx LIMIT 1;
