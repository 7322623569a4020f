-- The first problem of a rocprofv3 CSV capture staged in _rcsv_rows, by file and row: a kernel dispatch
-- whose agent is not a GPU (or not an agent at all), or without a kernel name; a dispatch, memory copy or
-- API call whose Start_Timestamp or End_Timestamp is no integer, or that ends before it starts. No row:
-- the rows are consistent.
-- Inputs: TEMP _rcsv_rows, _rcsv_devices.
-- Parameters: none.
-- Output: at most one row of four columns (the tiny traces of tests/test_sql_headers.py are not rocprofv3
--   captures; tests/test_rocprof_csv.py reads each): part VARCHAR, the file; row BIGINT, the data row
--   (1-based); problem VARCHAR, what is wrong; expected VARCHAR, what was expected instead.
WITH rows AS (
    SELECT r.part, r."row", r.start_ts, r.end_ts, TRY_CAST(trim(r.start_ts) AS BIGINT) AS s,
           TRY_CAST(trim(r.end_ts) AS BIGINT) AS e, r.agent, r.kernel_name, d.parsed, d.is_gpu,
           CASE r.part WHEN 'kernel_trace' THEN 0 WHEN 'memory_copy_trace' THEN 1 WHEN 'hip_api_trace' THEN 2
                       ELSE 3 END AS part_ord
    FROM _rcsv_rows r LEFT JOIN _rcsv_devices d ON d.agent = r.agent AND r.part = 'kernel_trace'
    WHERE r.part <> 'agent_info'
), problems AS (
    SELECT part, "row", part_ord,
        CASE WHEN s IS NULL THEN format('Start_Timestamp is ''{}''', coalesce(start_ts, ''))
             WHEN e IS NULL THEN format('End_Timestamp is ''{}''', coalesce(end_ts, ''))
             WHEN e < s THEN format('ends before it starts (Start_Timestamp {}, End_Timestamp {})', s, e)
             WHEN part <> 'kernel_trace' THEN NULL
             WHEN NOT coalesce(parsed, false) THEN format('Agent_Id is ''{}''', coalesce(agent, ''))
             WHEN NOT is_gpu THEN format('Agent_Id ''{}'' is no GPU agent', agent)
             WHEN coalesce(kernel_name, '') = '' THEN 'Kernel_Name is empty'
        END AS problem,
        CASE WHEN s IS NULL OR e IS NULL THEN 'integer timestamps in ns'
             WHEN e < s THEN 'End_Timestamp >= Start_Timestamp'
             WHEN NOT coalesce(parsed, false) THEN 'an agent as rocprofv3 writes it: Agent N, GPU N or N'
             WHEN NOT is_gpu THEN 'a GPU agent (the agent info file lists its type)'
             ELSE 'the name of the kernel dispatched' END AS expected
    FROM rows
)
SELECT part, "row", problem, expected FROM problems WHERE problem IS NOT NULL
ORDER BY part_ord, "row" LIMIT 1;
