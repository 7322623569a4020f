-- `tracedb runs`: every run with its provenance. Inputs: runs.
-- Columns: run, format, rank, device, kernels (counted), duplicates, span_ms (first start to last end),
--   tags (k=v, ...), source, ingested_at.
SELECT name AS run, format, rank, device_kind || coalesce(':' || device_id, '') AS device, kernel_count AS kernels,
    kernel_rows - kernel_count AS duplicates, ms(last_end_ns - first_start_ns) AS span_ms,
    array_to_string(list_transform(map_entries(tags), lambda e: e.key || '=' || e.value), ', ') AS tags,
    source_path AS source, strftime(ingested_at, '%Y-%m-%d %H:%M:%S') AS ingested_at
FROM runs ORDER BY run_id;
