-- Advise --baseline: the baseline runs' facts kept apart before advise_runs.sql makes _adv_runs anew for the
-- runs judged.
-- Inputs: _adv_runs (advise_runs.sql, run over the baseline runs).
-- Parameters: none.
-- Output: TEMP _adv_base_runs, a copy of _adv_runs: one row per baseline run, the same columns.
CREATE OR REPLACE TEMP TABLE _adv_base_runs AS SELECT * FROM _adv_runs;
