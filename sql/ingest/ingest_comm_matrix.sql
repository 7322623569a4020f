-- One rank's Ascend communication_matrix.json (per step, op group and src-dst link) into comm_matrix, sizes
-- in bytes and times in ns (tracedb.ingest.ascend_comm).
-- Inputs: run_groups (the run's groups, inserted before: src_global and dst_global).
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $steps VARCHAR[]: step keys
--   $classes VARCHAR[]: collective | p2p
--   $ops VARCHAR[]: op group keys before '@' (allreduce-top1, ...)
--   $groups VARCHAR[]: HCCL group ids
--   $srcs INTEGER[]: source ranks
--   $dsts INTEGER[]: destination ranks
--   $transports VARCHAR[]: Transport Type
--   $sizes BIGINT[]: Transit Size in bytes
--   $times BIGINT[]: Transit Time in ns
--   $bandwidths DOUBLE[]: Bandwidth(GB/s)
--   $op_names VARCHAR[]: Op Name
-- Output: rows in comm_matrix (columns: migrate_5_to_6.sql and migrate_7_to_8.sql), one per link; the link's
--   ranks in the group map to global ranks through the group whose key hashes to the link's HCCL group id.
INSERT INTO comm_matrix BY NAME
WITH links AS (
    SELECT unnest($steps::VARCHAR[]) AS step, unnest($classes::VARCHAR[]) AS op_class,
        unnest($ops::VARCHAR[]) AS matrix_op, unnest($groups::VARCHAR[]) AS comm_group,
        unnest($srcs::INTEGER[]) AS src_rank, unnest($dsts::INTEGER[]) AS dst_rank,
        unnest($transports::VARCHAR[]) AS transport, unnest($sizes::BIGINT[]) AS size_bytes,
        unnest($times::BIGINT[]) AS time_ns, unnest($bandwidths::DOUBLE[]) AS bandwidth_gbps,
        unnest($op_names::VARCHAR[]) AS op_name
), groups AS (
    -- the run's groups (profiler_metadata.json, ingested before this file) by their HCCL id
    SELECT hccl_group_id(group_name) AS comm_group, ranks FROM run_groups
    WHERE run_id = $run_id AND starts_with(group_name, 'group_name_')
)
SELECT $run_id AS run_id, l.*, g.ranks[l.src_rank + 1] AS src_global, g.ranks[l.dst_rank + 1] AS dst_global
FROM links l LEFT JOIN groups g USING (comm_group);
