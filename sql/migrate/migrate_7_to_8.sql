-- Schema v7 -> v8: stored segmentations of whole steps. A kernel's stored segment gains its phase, step,
-- micro-batch, unit and gradient kind; kernel_layers (views.sql) shows them. The links of an Ascend
-- communication matrix gain their global ranks.
-- Inputs: a v7 store; the session macro hccl_group_id (macros.sql).
-- Parameters: none.
-- Output: kernel_segments gains the columns (earlier rows: phase forward and unit prologue or layer for
--   the kernels in a pass, the rest NULL):
--   phase VARCHAR: forward | backward; NULL outside every pass (the optimizer's kernels too)
--   step BIGINT: the pass's step (segment_steps.sql)
--   microbatch BIGINT: the pass's position among its step's passes of its phase, from 0
--   unit VARCHAR: prologue | layer | epilogue in a pass; optimizer for the optimizer's kernels; NULL for
--     the other kernels outside every pass
--   grad VARCHAR: input | weight for a backward kernel where the trace says which gradient; else NULL
-- Output: comm_matrix gains the columns (filled for the rows already stored too):
--   src_global INTEGER: the link's source as a global rank (its rank in the group, mapped through the
--     group's global_ranks in profiler_metadata.json); NULL when the run's metadata lacks the group
--   dst_global INTEGER: its destination, likewise
ALTER TABLE comm_matrix ADD COLUMN src_global INTEGER;
ALTER TABLE comm_matrix ADD COLUMN dst_global INTEGER;
UPDATE comm_matrix m SET src_global = g.ranks[m.src_rank + 1], dst_global = g.ranks[m.dst_rank + 1]
FROM run_groups g
WHERE g.run_id = m.run_id AND starts_with(g.group_name, 'group_name_') AND hccl_group_id(g.group_name) = m.comm_group;
ALTER TABLE kernel_segments ADD COLUMN phase VARCHAR;
ALTER TABLE kernel_segments ADD COLUMN step BIGINT;
ALTER TABLE kernel_segments ADD COLUMN microbatch BIGINT;
ALTER TABLE kernel_segments ADD COLUMN unit VARCHAR;
ALTER TABLE kernel_segments ADD COLUMN grad VARCHAR;
UPDATE kernel_segments SET phase = 'forward', unit = CASE WHEN layer IS NULL THEN 'prologue' ELSE 'layer' END
WHERE pass IS NOT NULL;
