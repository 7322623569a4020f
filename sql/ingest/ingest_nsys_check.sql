-- The first device activity or CUDA API call of an Nsight Systems export (as copied by ingest/nsys.py)
-- without a start or end, ending before it starts, or with a time outside $min_ns..$max_ns, or the first NVTX
-- event with a time outside them (an NVTX range may lack its end, or end before it starts: the insert keeps the
-- first to the capture's end and leaves the second out). No row: every time is usable.
-- Inputs: TEMP _nsys_activity, _nsys_api, _nsys_nvtx.
-- Parameters:
--   $min_ns BIGINT: the earliest time taken, in ns (ingest/nsys.py MIN_NS; events before the capture start
--     are negative)
--   $max_ns BIGINT: the latest time taken, in ns (ingest/nsys.py MAX_NS): times beyond the two would overflow
--     the BIGINT arithmetic of the insert and the reports (a start near -2^63 made `end - start` overflow)
-- Output: at most one row of three columns (the tiny traces of tests/test_sql_headers.py are no Nsight
--   Systems exports; tests/test_nsys.py reads each): the table VARCHAR, the export's table of the row;
--   start_ns BIGINT and end_ns BIGINT, the row's times as found.
SELECT "table", start_ns, end_ns
FROM (SELECT CASE kind WHEN 'kernel' THEN 'CUPTI_ACTIVITY_KIND_KERNEL' WHEN 'memcpy' THEN 'CUPTI_ACTIVITY_KIND_MEMCPY'
                       ELSE 'CUPTI_ACTIVITY_KIND_MEMSET' END AS "table",
             0 AS part, ord, start_ns, end_ns, true AS closed
      FROM _nsys_activity
      UNION ALL
      SELECT CASE cat WHEN 'cuda_runtime' THEN 'CUPTI_ACTIVITY_KIND_RUNTIME' ELSE 'CUPTI_ACTIVITY_KIND_DRIVER' END,
             0, ord, start_ns, end_ns, true FROM _nsys_api
      UNION ALL
      SELECT 'NVTX_EVENTS', 1, ord, start_ns, end_ns, false FROM _nsys_nvtx)
WHERE (closed AND (start_ns IS NULL OR end_ns IS NULL OR end_ns < start_ns))
   OR start_ns NOT BETWEEN $min_ns AND $max_ns OR end_ns NOT BETWEEN $min_ns AND $max_ns
ORDER BY part, "table", ord
LIMIT 1;
