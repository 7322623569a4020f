-- One rocprofv3 CSV file that DuckDB's reader refused, read again as ingest_rocprof_csv_append reads it but
-- with the rows it cannot read set aside: they are listed in TEMP _rcsv_rejects (one row per problem, its
-- line and kind) instead of stopping the read. The caller keeps the rows only when the one line set aside
-- is the file's last, cut short at the end of the file (ingest/cut_end.py); otherwise it refuses the first
-- line listed.
-- Inputs: TEMP _rcsv_rows (ingest_rocprof_csv_tables); the file at $path.
-- Parameters:
--   $path VARCHAR: the CSV file
--   $part VARCHAR: which file it is (kernel_trace, memory_copy_trace, hip_api_trace, marker_api_trace,
--     agent_info)
--   $columns MAP(VARCHAR, VARCHAR): every column of the file in order, as staging column name -> VARCHAR
-- Output: the rows read appended to TEMP _rcsv_rows, in file order; TEMP _rcsv_rejects (DuckDB's rejects
--   table: line UBIGINT, the physical line, 1 the header; error_type, what is wrong; csv_line VARCHAR, the
--   line's text; error_message VARCHAR; and DuckDB's other columns) and TEMP _rcsv_rejects_scan, made afresh.
DROP TABLE IF EXISTS _rcsv_rejects;
DROP TABLE IF EXISTS _rcsv_rejects_scan;
INSERT INTO _rcsv_rows BY NAME
SELECT $part AS part, COLUMNS(lambda c: NOT starts_with(c, '_skip')), row_number() OVER () AS "row"
FROM read_csv($path, header = true, auto_detect = false, columns = $columns, delim = ',', quote = '"',
              escape = '"', encoding = 'utf-8', store_rejects = true, rejects_table = '_rcsv_rejects',
              rejects_scan = '_rcsv_rejects_scan');
