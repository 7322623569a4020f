-- Every run of the store, for `--run`/`--tag` left out: a store of one run needs no name for it.
-- Inputs: runs.
-- Parameters: none.
-- Output: rows, one:
--   run_ids INTEGER[]: the store's runs; NULL in a store of no run
SELECT list(run_id) AS run_ids FROM runs;
