-- The ranks of report ranks with kernels: rank, clock offset and clock set, pipeline stage and model layer base
-- of each run (ranks_units.sql reads it).
-- Inputs: none.
-- Parameters:
--   $r INTEGER[]: the runs with kernels
--   $k INTEGER[]: their ranks, in the order of $r
--   $o BIGINT[]: their clock offsets in ns
--   $s INTEGER[]: their clock sets (-1: one clock for all)
--   $p INTEGER[]: their pipeline stages (-1: none)
--   $b BIGINT[]: the model layer of each run's first layer
-- Output: TEMP _rk_ranks, one row per run of $r: run_id INTEGER, rank INTEGER, offset_ns BIGINT, clock_set
--   INTEGER, pp_stage INTEGER and layer_base BIGINT.
CREATE OR REPLACE TEMP TABLE _rk_ranks AS SELECT unnest($r)::INTEGER AS run_id,
unnest($k)::INTEGER AS rank, unnest($o)::BIGINT AS offset_ns, unnest($s)::INTEGER AS clock_set,
unnest($p)::INTEGER AS pp_stage, unnest($b)::BIGINT AS layer_base;
