-- Advise: the runs without steps, whose at_stake_pct is of their span (a note each).
-- Inputs: _adv_runs (advise_runs.sql).
-- Parameters: none.
-- Output: rows, one per run without steps, in run order:
--   run_id INTEGER: the run
--   base VARCHAR: span
SELECT run_id, base FROM _adv_runs WHERE base = 'span' ORDER BY run_id;
