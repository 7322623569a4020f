-- One rocprofv3 CSV file into _rcsv_rows, read by DuckDB's CSV reader with the file's own header: the
-- caller names each column (its staging column, or a name starting with _skip for a column tracedb does
-- not read) and every value is read as text, so that a timestamp keeps all its digits until it is cast
-- to BIGINT and a bad value is named by line instead of failing the reader.
-- Inputs: TEMP _rcsv_rows (ingest_rocprof_csv_tables); the file at $path.
-- Parameters:
--   $path VARCHAR: the CSV file
--   $part VARCHAR: which file it is (kernel_trace, memory_copy_trace, hip_api_trace, marker_api_trace,
--     agent_info)
--   $columns MAP(VARCHAR, VARCHAR): every column of the file in order, as staging column name -> VARCHAR
-- Output: rows appended to TEMP _rcsv_rows, in file order.
INSERT INTO _rcsv_rows BY NAME
SELECT $part AS part, COLUMNS(lambda c: NOT starts_with(c, '_skip')), row_number() OVER () AS "row"
FROM read_csv($path, header = true, auto_detect = false, columns = $columns, delim = ',', quote = '"',
              escape = '"', encoding = 'utf-8');
