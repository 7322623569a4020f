-- Renames a run (`tracedb runs rename`).
-- Inputs: runs.
-- Parameters:
--   $n VARCHAR: the new name
--   $r INTEGER: the run
-- Output: the run's name updated in runs.
UPDATE runs SET name = $n WHERE run_id = $r;
