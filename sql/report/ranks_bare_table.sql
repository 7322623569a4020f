-- The ranks of report ranks without kernels (communication ops only): rank, clock set and pipeline stage of each
-- run (ranks_units.sql reads it).
-- Inputs: none.
-- Parameters:
--   $r INTEGER[]: the runs without kernels
--   $k INTEGER[]: their ranks, in the order of $r
--   $s INTEGER[]: their clock sets (-1: one clock for all)
--   $p INTEGER[]: their pipeline stages (-1: none)
-- Output: TEMP _rk_bare, one row per run of $r: run_id INTEGER, rank INTEGER, clock_set INTEGER and pp_stage
--   INTEGER.
CREATE OR REPLACE TEMP TABLE _rk_bare AS SELECT unnest($r)::INTEGER AS run_id, unnest($k)::INTEGER
AS rank, unnest($s)::INTEGER AS clock_set, unnest($p)::INTEGER AS pp_stage;
