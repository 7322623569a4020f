-- What the pass split of each run followed, for its note.
-- Inputs: _pass_split (segment_passes.sql).
-- Parameters: none.
-- Output: rows, one per run, in run order:
--   run_id INTEGER: the run
--   rule VARCHAR: gaps | local | none | factor
--   threshold_ns BIGINT: the break threshold
--   inside_max_ns BIGINT: the largest gap not taken as a break
--   breaks BIGINT: break gaps taken
--   forced_breaks BIGINT: forced breaks for other work between anchors
--   step_breaks BIGINT: breaks at step boundaries
--   replay_breaks BIGINT: breaks between graph replays that each hold whole passes
--   kind_breaks BIGINT: breaks where the anchor changes between kernels that take turns pass by pass
--   module_breaks BIGINT: breaks where the model's blocks are called again
SELECT run_id, rule, threshold_ns, inside_max_ns, breaks, forced_breaks, step_breaks, replay_breaks,
    kind_breaks, module_breaks FROM _pass_split
ORDER BY run_id;
