-- Register one run. Parameters: every column of `runs` that ingest knows before the kernels land.
INSERT INTO runs (run_id, name, tags, source_path, source_files, source_bytes, format, content_hash, rank,
                  device_kind, device_name, world_size, clock_domain, truncated, metric_columns, extra_columns,
                  metadata, ingested_at, tracedb_version, time_base_ns)
VALUES ($run_id, $name, map($tag_keys::VARCHAR[], $tag_values::VARCHAR[]), $source_path, $source_files,
        $source_bytes, $format, $content_hash, $rank, $device_kind, $device_name, $world_size, $clock_domain,
        $truncated, $metric_columns::VARCHAR[], $extra_columns::VARCHAR[], $metadata, now()::TIMESTAMP, $version,
        $time_base_ns);
