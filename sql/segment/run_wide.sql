-- Every kernel of the selected runs in one run-wide unit, for the reports that answer without an anchor
-- (report kernels and timeline on a trace where no kernel repeats once per layer): no pass, no layer.
-- Inputs: kernels, _cats (categories.sql), _rules.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _assigned, one row per kernel of the runs, with the columns segment_assign.sql gives:
--   run_id INTEGER: the run
--   pass BIGINT: NULL (no passes without an anchor)
--   layer BIGINT: NULL
--   block BIGINT: NULL
--   half BIGINT: NULL
--   seq BIGINT: the kernel (kernels.seq)
--   start_ns BIGINT: its start
--   end_ns BIGINT: its end
--   dur_ns BIGINT: its duration
--   is_comm BOOLEAN: in the communication category
--   cat_ord INTEGER: its category (_rules.cat_ord), by name (_cats)
--   unit VARCHAR: 'run'
CREATE OR REPLACE TEMP TABLE _assigned AS
SELECT k.run_id, NULL::BIGINT AS pass, NULL::BIGINT AS layer, NULL::BIGINT AS block, NULL::BIGINT AS half,
    k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns, k.dur_ns, coalesce(c.category = 'communication', false) AS is_comm,
    coalesce(c.cat_ord, (SELECT cat_ord FROM _rules WHERE category = 'other' LIMIT 1)) AS cat_ord, 'run' AS unit
FROM kernels k LEFT JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
WHERE k.run_id IN (SELECT unnest($run_ids::INTEGER[]));
