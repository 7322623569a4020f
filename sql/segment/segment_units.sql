-- Where the device time of each run sits after a segmentation: the prologue, layers and epilogue of the
-- passes assigned (segment_assign.sql), and the run's total, its optimizer kernels (kernel_phases.sql) and
-- its kernels of the phase not segmented here.
-- Inputs: _assigned, _phase, kernels.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $phase VARCHAR: the phase of _assigned (forward | backward)
-- Output: rows, one per run, in run_id order:
--   run_id INTEGER: the run
--   total_ns HUGEINT: the device time of all its kernels
--   prologue_ns HUGEINT: in the prologues of the assigned passes
--   layers_ns HUGEINT: in their layers
--   epilogue_ns HUGEINT: in their epilogues
--   optimizer_ns HUGEINT: the optimizer's kernels
--   other_phase_ns HUGEINT: kernels of the other phase (forward or backward) than $phase
WITH units AS (
    SELECT run_id, sum(dur_ns) FILTER (WHERE unit = 'prologue') AS prologue_ns,
        sum(dur_ns) FILTER (WHERE unit = 'layer') AS layers_ns, sum(dur_ns) FILTER (WHERE unit = 'epilogue') AS epilogue_ns
    FROM _assigned GROUP BY run_id
), totals AS (
    SELECT k.run_id, sum(k.dur_ns) AS total_ns,
        sum(k.dur_ns) FILTER (WHERE p.phase = 'optimizer') AS optimizer_ns,
        sum(k.dur_ns) FILTER (WHERE p.phase IN ('forward', 'backward') AND p.phase <> $phase) AS other_phase_ns
    FROM kernels k LEFT JOIN _phase p USING (run_id, seq)
    WHERE k.run_id IN (SELECT unnest($run_ids))
    GROUP BY k.run_id
)
SELECT t.run_id, t.total_ns, coalesce(u.prologue_ns, 0) AS prologue_ns, coalesce(u.layers_ns, 0) AS layers_ns,
    coalesce(u.epilogue_ns, 0) AS epilogue_ns, coalesce(t.optimizer_ns, 0) AS optimizer_ns,
    coalesce(t.other_phase_ns, 0) AS other_phase_ns
FROM totals t LEFT JOIN units u USING (run_id)
ORDER BY t.run_id;
