-- The first device activity or CUDA API call of an Nsight Systems export (as copied by ingest/nsys.py)
-- without a start or end, or ending before it starts. No row: every time is usable.
-- Inputs: TEMP _nsys_activity, _nsys_api.
-- Parameters: none.
-- Output: at most one row of three columns (the tiny traces of tests/test_sql_headers.py are no Nsight
--   Systems exports; tests/test_nsys.py reads each): the table VARCHAR, the export's table of the row;
--   start_ns BIGINT and end_ns BIGINT, the row's times as found.
SELECT "table", start_ns, end_ns
FROM (SELECT CASE kind WHEN 'kernel' THEN 'CUPTI_ACTIVITY_KIND_KERNEL' WHEN 'memcpy' THEN 'CUPTI_ACTIVITY_KIND_MEMCPY'
                       ELSE 'CUPTI_ACTIVITY_KIND_MEMSET' END AS "table", ord, start_ns, end_ns FROM _nsys_activity
      UNION ALL
      SELECT CASE cat WHEN 'cuda_runtime' THEN 'CUPTI_ACTIVITY_KIND_RUNTIME' ELSE 'CUPTI_ACTIVITY_KIND_DRIVER' END,
             ord, start_ns, end_ns FROM _nsys_api)
WHERE start_ns IS NULL OR end_ns IS NULL OR end_ns < start_ns
ORDER BY "table", ord
LIMIT 1;
