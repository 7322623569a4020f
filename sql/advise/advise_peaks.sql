-- Advise rule roofline-gap: whether each run's device has a known peak (else the rule is silent for it).
-- Inputs: _peaks (peaks_table.sql).
-- Parameters: none.
-- Output: rows, one per run:
--   run_id INTEGER: the run
--   known BOOLEAN: a FLOP/s or bandwidth peak is known
SELECT run_id, bool_or(flops_s IS NOT NULL OR bytes_s IS NOT NULL) AS known FROM _peaks
GROUP BY run_id;
