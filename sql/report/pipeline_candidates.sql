-- Report pipeline: the inputs of pipeline_stage.sql before any segmentation: the pipeline send/receive kernel
-- names, and empty stand-ins for the session tables no segmentation made yet.
-- Inputs: none.
-- Parameters:
--   $names VARCHAR[]: the pipeline send/receive kernel names
-- Output: TEMP _p2p_names, one row per name of $names:
--   name VARCHAR: the kernel name
-- Output: TEMP _passes and TEMP _phase, made empty when absent (run_id, expected; run_id, seq, phase, evidence,
--   start_ns), left as they are otherwise.
CREATE OR REPLACE TEMP TABLE _p2p_names AS SELECT unnest($names)::VARCHAR AS name;
CREATE TEMP TABLE IF NOT EXISTS _passes AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS expected
LIMIT 0;
CREATE TEMP TABLE IF NOT EXISTS _phase AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS seq,
NULL::VARCHAR AS phase, NULL::VARCHAR AS evidence, NULL::BIGINT AS start_ns LIMIT 0;
