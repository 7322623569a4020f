-- Whether the runs can hold anything but forward work, before kernel_phases.sql reads every kernel: a
-- kernel name that says backward or optimizer (once per distinct name), or a user annotation that names
-- a phase (a foreach kernel alone, _name_phase.weak, is no such name). An inference trace has neither, and its segmentation skips the phase stage.
-- Inputs: _name_phase (kernel_phases.sql's: the names that say backward, optimizer or forward), host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: one row:
--   any_phase BOOLEAN: some run may hold backward or optimizer work
SELECT EXISTS (SELECT 1 FROM _name_phase WHERE phase IN ('backward', 'optimizer') AND NOT weak)
    OR EXISTS (SELECT 1 FROM host_events WHERE run_id IN (SELECT unnest($run_ids)) AND cat = 'user_annotation'
                 AND (regexp_matches(name, '\([FBW]\)$')
                      OR regexp_matches(name, '(?i)^(forward|fwd|backward|bwd)([-_ ](step|compute|pass))?$')
                      OR regexp_matches(name, '(?i)^optimizer([-_ ]step)?$|^Optimizer\.(step|zero_grad)#'))) AS any_phase;
