-- `tracedb runs`: the selected runs with provenance and size.
-- Inputs: runs, TEMP _run_passes(run_id INTEGER, passes BIGINT): filled by --passes, else from the stored
--   segmentations.
-- Parameters:
--   $run_ids INTEGER[]: the runs to list, in this order
-- Output: rows, one per run:
--   run VARCHAR: the run's name
--   source VARCHAR: the file the run read (runs.source_files) when it read one, else runs.source_path (a folder)
--   format VARCHAR: runs.format
--   rank INTEGER: runs.rank
--   device VARCHAR: its name when the trace gives it, else kind:id
--   source_mb DECIMAL(26,3): bytes of the files read / 10^6; empty for runs ingested before schema v3
--   kernel_rows BIGINT: rows ingested
--   kernels BIGINT: rows counted
--   duplicates BIGINT: rows not counted
--   passes BIGINT: forward passes, found with --passes, else those of the run's stored segmentation;
--     empty for a run never segmented
--   span_ms DECIMAL(26,6): first start to last end
--   tags VARCHAR: k=v, ...
--   ingested_at VARCHAR: YYYY-MM-DD HH:MM:SS
SELECT r.name AS run,
    CASE WHEN len(r.source_files) = 1 THEN r.source_files[1] ELSE r.source_path END AS source, r.format, r.rank,
    coalesce(r.device_name, r.device_kind || coalesce(':' || r.device_id, '')) AS device,
    round(r.source_bytes * 0.000001, 3) AS source_mb, r.kernel_rows, r.kernel_count AS kernels,
    r.kernel_rows - r.kernel_count AS duplicates, p.passes, ms(r.last_end_ns - r.first_start_ns) AS span_ms,
    array_to_string(list_transform(map_entries(r.tags), lambda e: e.key || '=' || e.value), ', ') AS tags,
    strftime(r.ingested_at, '%Y-%m-%d %H:%M:%S') AS ingested_at
FROM runs r LEFT JOIN _run_passes p USING (run_id)
WHERE r.run_id IN (SELECT unnest($run_ids::INTEGER[]))
ORDER BY list_position($run_ids::INTEGER[], r.run_id);
