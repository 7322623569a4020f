-- Per training run, its kernels and their time by phase and by what decided the phase, for its note.
-- Inputs: _phase (kernel_phases.sql).
-- Parameters: none.
-- Output: rows, one per (run, phase, evidence):
--   run_id INTEGER: the run
--   phase VARCHAR: forward | backward | optimizer
--   evidence VARCHAR: annotation | autograd | name | order
--   kernels BIGINT: its kernels
--   ns HUGEINT: their time
SELECT run_id, phase, evidence, count(*) AS kernels, sum(dur_ns) AS ns FROM _phase GROUP BY ALL;
