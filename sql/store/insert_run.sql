-- Register runs: their runs rows, with every column of `runs` that ingest knows before the kernels land
-- (ingest_run_stats.sql fills the summary columns next, in the same transaction). One list entry per run:
-- a folder ingest's worker registers a batch's runs by one statement (32 runs one by one took 28 ms).
-- Inputs: none.
-- Parameters:
--   $run_ids INTEGER[]: the new runs' ids
--   $names VARCHAR[]: their names, unique in the store
--   $tag_keys VARCHAR[][]: each run's tag keys (`--tag KEY=VALUE`), in the order of its $tag_values
--   $tag_values VARCHAR[][]: their values
--   $source_paths VARCHAR[]: what the user named (file or profiler folder)
--   $source_files VARCHAR[][]: the files actually read, in read order
--   $source_bytes BIGINT[]: bytes of those files as read (a .gz counts compressed)
--   $formats VARCHAR[]: ascend-kernel-details | ascend-op-summary | chrome-trace | ascend-trace-view | ...
--   $content_hashes VARCHAR[]: sha256 over the bytes of the source files, in order
--   $ranks INTEGER[]: the device's rank, NULL when unknown
--   $device_kinds VARCHAR[]: npu | gpu
--   $device_names VARCHAR[]: the device's name when the trace gives it, else NULL
--   $world_sizes INTEGER[]: ranks in the job when the trace gives it, else NULL
--   $clock_domains VARCHAR[]: unix-epoch-local | unix-epoch | trace-relative (runs.clock_domain)
--   $truncated BOOLEAN[]: the trace file ends early and was read up to its last complete event or row
--   $metric_columns VARCHAR[][]: names of numeric source columns without a column of their own (PMU)
--   $extra_columns VARCHAR[][]: names of the other such columns (text)
--   $metadata VARCHAR[]: JSON: profiler_info and similar provenance
--   $version VARCHAR: the tracedb version that ingests (runs.tracedb_version)
--   $time_base_ns BIGINT[]: what the ingest added to the file's timestamps (Kineto's baseTimeNanoseconds; 0
--     when none; NULL for CSV runs)
-- Output: one row in runs per run (ingested_at: now).
INSERT INTO runs (run_id, name, tags, source_path, source_files, source_bytes, format, content_hash, rank,
                  device_kind, device_name, world_size, clock_domain, truncated, metric_columns, extra_columns,
                  metadata, ingested_at, tracedb_version, time_base_ns)
SELECT run_id, name, map(tag_keys, tag_values), source_path, source_files, source_bytes, format, content_hash,
    rank, device_kind, device_name, world_size, clock_domain, truncated, metric_columns, extra_columns, metadata,
    now()::TIMESTAMP, $version, time_base_ns
FROM (SELECT unnest($run_ids::INTEGER[]) AS run_id, unnest($names::VARCHAR[]) AS name,
          unnest($tag_keys::VARCHAR[][]) AS tag_keys, unnest($tag_values::VARCHAR[][]) AS tag_values,
          unnest($source_paths::VARCHAR[]) AS source_path, unnest($source_files::VARCHAR[][]) AS source_files,
          unnest($source_bytes::BIGINT[]) AS source_bytes, unnest($formats::VARCHAR[]) AS format,
          unnest($content_hashes::VARCHAR[]) AS content_hash, unnest($ranks::INTEGER[]) AS rank,
          unnest($device_kinds::VARCHAR[]) AS device_kind, unnest($device_names::VARCHAR[]) AS device_name,
          unnest($world_sizes::INTEGER[]) AS world_size, unnest($clock_domains::VARCHAR[]) AS clock_domain,
          unnest($truncated::BOOLEAN[]) AS truncated, unnest($metric_columns::VARCHAR[][]) AS metric_columns,
          unnest($extra_columns::VARCHAR[][]) AS extra_columns, unnest($metadata::VARCHAR[]) AS metadata,
          unnest($time_base_ns::BIGINT[]) AS time_base_ns);
