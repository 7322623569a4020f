-- Per run, how many of its attributed kernels have a launching runtime call in the trace.
-- Inputs: _attr (attribute_modules.sql).
-- Parameters: none.
-- Output: rows, one per run of _attr:
--   run_id INTEGER: the run
--   launched BIGINT: its kernels with a host launch
SELECT run_id, count(*) FILTER (WHERE module <> '(no host launch)') AS launched FROM _attr GROUP BY run_id;
