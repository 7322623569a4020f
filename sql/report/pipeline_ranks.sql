-- Report pipeline: each run's rank, stage, pipeline group, clock offset and clock set, from lists of one
-- element per run that Python builds (engine/reports/pipeline.py).
-- Inputs: none.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $ranks INTEGER[]: their ranks
--   $stages INTEGER[]: their pipeline stages; NULL when unknown
--   $counts INTEGER[]: the number of stages of their pipelines
--   $pipelines VARCHAR[]: their pipeline group's ranks as text; 'run N' when unknown (a pipeline of its own)
--   $offsets BIGINT[]: their clock offsets, ns
--   $clock_sets INTEGER[]: their clock sets; -1 when not aligned
-- Output: TEMP _pl_ranks, one row per run:
--   run_id INTEGER: the run
--   rank INTEGER: its rank
--   stage INTEGER: its stage
--   stages INTEGER: its pipeline's stages
--   pipeline VARCHAR: its pipeline group
--   offset_ns BIGINT: its clock offset
--   clock_set INTEGER: its clock set
CREATE OR REPLACE TEMP TABLE _pl_ranks AS SELECT unnest($run_ids)::INTEGER AS run_id,
unnest($ranks)::INTEGER AS rank, unnest($stages)::INTEGER AS stage, unnest($counts)::INTEGER AS stages,
unnest($pipelines)::VARCHAR AS pipeline, unnest($offsets)::BIGINT AS offset_ns,
unnest($clock_sets)::INTEGER AS clock_set;
