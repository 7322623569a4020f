-- The pass count of each listed run (`tracedb runs`), as a table the run listing joins.
-- Inputs: none.
-- Parameters:
--   $r INTEGER[]: the runs with a pass count
--   $n BIGINT[]: their pass counts, in the order of $r
-- Output: TEMP _run_passes, one row per run of $r:
--   run_id INTEGER: the run
--   passes BIGINT: its passes
CREATE OR REPLACE TEMP TABLE _run_passes AS SELECT unnest($r)::INTEGER AS run_id, unnest($n)::BIGINT AS passes;
