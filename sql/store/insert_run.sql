-- Register one run: its runs row, with every column of `runs` that ingest knows before the kernels land
-- (ingest_run_stats.sql fills the summary columns next, in the same transaction).
-- Inputs: none.
-- Parameters:
--   $run_id INTEGER: the new run's id
--   $name VARCHAR: the run's name, unique in the store
--   $tag_keys VARCHAR[]: tag keys (`--tag KEY=VALUE`), in the order of $tag_values
--   $tag_values VARCHAR[]: their values
--   $source_path VARCHAR: what the user named (file or profiler folder)
--   $source_files VARCHAR[]: the files actually read, in read order
--   $source_bytes BIGINT: bytes of those files as read (a .gz counts compressed)
--   $format VARCHAR: ascend-kernel-details | ascend-op-summary | chrome-trace | ascend-trace-view
--   $content_hash VARCHAR: sha256 over the bytes of the source files, in order
--   $rank INTEGER: the device's rank, NULL when unknown
--   $device_kind VARCHAR: npu | gpu
--   $device_name VARCHAR: the device's name when the trace gives it, else NULL
--   $world_size INTEGER: ranks in the job when the trace gives it, else NULL
--   $clock_domain VARCHAR: unix-epoch-local | unix-epoch | trace-relative (runs.clock_domain)
--   $truncated BOOLEAN: the trace file ends early and was read up to its last complete event
--   $metric_columns VARCHAR[]: names of numeric source columns without a column of their own (PMU)
--   $extra_columns VARCHAR[]: names of the other such columns (text)
--   $metadata VARCHAR: JSON: profiler_info and similar provenance
--   $version VARCHAR: the tracedb version that ingests (runs.tracedb_version)
--   $time_base_ns BIGINT: what the ingest added to the file's timestamps (Kineto's baseTimeNanoseconds; 0
--     when none; NULL for CSV runs)
-- Output: one row in runs (ingested_at: now).
INSERT INTO runs (run_id, name, tags, source_path, source_files, source_bytes, format, content_hash, rank,
                  device_kind, device_name, world_size, clock_domain, truncated, metric_columns, extra_columns,
                  metadata, ingested_at, tracedb_version, time_base_ns)
VALUES ($run_id, $name, map($tag_keys::VARCHAR[], $tag_values::VARCHAR[]), $source_path, $source_files,
        $source_bytes, $format, $content_hash, $rank, $device_kind, $device_name, $world_size, $clock_domain,
        $truncated, $metric_columns::VARCHAR[], $extra_columns::VARCHAR[], $metadata, now()::TIMESTAMP, $version,
        $time_base_ns);
