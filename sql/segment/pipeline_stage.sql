-- The pipeline stage of each run, from its process groups (run_groups: Ascend profiler_metadata.json's
-- parallel_group_info, Kineto distributedInfo.pg_config): the group whose description names pipeline
-- parallelism ('pp', Megatron's PIPELINE_MODEL_PARALLEL_GROUP), the run's rank in it and its size.
-- Inputs: run_groups, _passes.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of a pipeline group of 2 or more stages, in run_id order:
--   run_id INTEGER: the run
--   stage INTEGER: its stage (its rank in the group), from 0
--   stages INTEGER: the group's size
--   ranks INTEGER[]: the group's global ranks
--   group_desc VARCHAR: the group's description
--   per_pass BIGINT: the anchors of its full passes (_passes.expected)
SELECT g.run_id, g.group_rank AS stage, g.group_size AS stages, g.ranks, g.group_desc,
    (SELECT max(p.expected) FROM _passes p WHERE p.run_id = g.run_id) AS per_pass
FROM run_groups g
WHERE g.run_id IN (SELECT unnest($run_ids)) AND g.group_size >= 2 AND g.group_rank IS NOT NULL
  AND regexp_matches(coalesce(g.group_desc, ''), '(?i)^pp$|pipeline')
QUALIFY row_number() OVER (PARTITION BY g.run_id ORDER BY g.group_name) = 1
ORDER BY g.run_id;
