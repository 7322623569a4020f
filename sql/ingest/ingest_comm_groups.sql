-- The parallel groups of runs (Kineto distributedInfo.pg_config, or the parallel_group_info of an Ascend
-- profiler_metadata.json), one list entry per group, into run_groups, inside the runs' transaction (a folder
-- ingest's worker adds a batch's groups at once).
-- Inputs: none.
-- Parameters:
--   $run_ids INTEGER[]: each group's run
--   $names VARCHAR[]: group names (pg_name; Ascend the group's key)
--   $descs VARCHAR[]: descriptions (pg_desc; Ascend group_name)
--   $backends VARCHAR[]: backend_config (NULL for Ascend)
--   $sizes INTEGER[]: ranks in each group
--   $ranks INTEGER[][]: each group's global ranks
--   $group_ranks INTEGER[]: the run's rank inside each group
-- Output: rows in run_groups (columns: migrate_5_to_6.sql), one per group.
INSERT INTO run_groups (run_id, group_name, group_desc, backend, group_size, ranks, group_rank)
SELECT unnest($run_ids::INTEGER[]), unnest($names::VARCHAR[]), unnest($descs::VARCHAR[]), unnest($backends::VARCHAR[]),
    unnest($sizes::INTEGER[]), unnest($ranks::INTEGER[][]), unnest($group_ranks::INTEGER[]);
