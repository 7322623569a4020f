-- The tables pipeline_stage.sql reads, made empty when the report found no passes or phases (a trace with
-- no layers has not made them).
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _passes, when absent, no rows: run_id INTEGER, expected BIGINT.
-- Output: TEMP _phase, when absent, no rows: run_id INTEGER, seq BIGINT, phase, grad and evidence VARCHAR,
--   start_ns and dur_ns BIGINT (kernel_phases.sql's columns).
-- Output: TEMP _p2p_names, when absent, no rows: name VARCHAR.
CREATE TEMP TABLE IF NOT EXISTS _passes AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS expected LIMIT 0;
CREATE TEMP TABLE IF NOT EXISTS _phase AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS seq,
    NULL::VARCHAR AS phase, NULL::VARCHAR AS grad, NULL::VARCHAR AS evidence, NULL::BIGINT AS start_ns,
    NULL::BIGINT AS dur_ns LIMIT 0;
CREATE TEMP TABLE IF NOT EXISTS _p2p_names AS SELECT NULL::VARCHAR AS name LIMIT 0;
