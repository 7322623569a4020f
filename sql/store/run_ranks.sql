-- The rank of each of some runs (a job's ranks: clock alignment, report ranks and pipeline, advise, and the
-- graph captures paired at ingest read them).
-- Inputs: runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids:
--   run_id INTEGER: the run
--   rank INTEGER: its rank (NULL when the trace does not say)
SELECT run_id, rank FROM runs WHERE run_id IN (SELECT unnest($run_ids));
