-- Advise --baseline: each run paired with its baseline run (Python pairs them: the one baseline run, else the
-- baseline run of its rank), and the pairs that measure different things (steps against a span).
-- Inputs: _adv_runs (advise_runs.sql), _adv_base_runs (advise_base_runs.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $base_ids INTEGER[]: their baseline runs, one per run
-- Output: TEMP _adv_pairs, one row per pair:
--   run_id INTEGER: the run
--   base_id INTEGER: its baseline run
-- Output: rows, one per pair whose run and baseline run differ in their base (step or span), in run order:
--   run VARCHAR: the run's name
--   base_run VARCHAR: the baseline run's name
--   base VARCHAR: step | span: the run's
--   base_base VARCHAR: step | span: the baseline run's
CREATE OR REPLACE TEMP TABLE _adv_pairs AS SELECT unnest($run_ids)::INTEGER AS run_id,
unnest($base_ids)::INTEGER AS base_id;
SELECT r.run, b.run AS base_run, r.base, b.base AS base_base FROM _adv_pairs p
JOIN _adv_runs r ON r.run_id = p.run_id JOIN _adv_base_runs b ON b.run_id = p.base_id
WHERE r.base <> b.base ORDER BY p.run_id;
