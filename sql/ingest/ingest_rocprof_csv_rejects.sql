-- The lines DuckDB's CSV reader set aside when a rocprofv3 CSV file was read again (a file cut short keeps its
-- complete rows when its last line is the only one).
-- Inputs: TEMP _rcsv_rejects (ingest_rocprof_csv_salvage.sql).
-- Parameters: none.
-- Output: rows, one per line set aside, in file order: line (BIGINT), error_type (VARCHAR), csv_line (VARCHAR).
SELECT line, error_type::VARCHAR, csv_line FROM _rcsv_rejects
ORDER BY line, byte_position;
