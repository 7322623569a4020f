-- Every run of the store, in store order (export parquet of a whole store).
-- Inputs: runs.
-- Parameters: none.
-- Output: rows, one per run:
--   run_id INTEGER: the run
SELECT run_id FROM runs ORDER BY run_id;
