-- The phases of the kernels an anchor matches in the training runs (an anchor matching backward kernels
-- only asks for backward passes). The pattern runs once per distinct (name, op type): materialized, so that
-- it is not pushed below the DISTINCT to run per kernel.
-- Inputs: kernels (views.sql), _phase (kernel_phases.sql).
-- Parameters:
--   $run_ids INTEGER[]: the training runs
--   $anchor VARCHAR: an RE2 pattern with search semantics, matched against the kernel name or its op type
-- Output: rows, one per phase the anchor's kernels have:
--   phase VARCHAR: the phase
--   kernels BIGINT: its anchor kernels
WITH names AS MATERIALIZED (SELECT DISTINCT name, op_type FROM kernels WHERE run_id IN (SELECT unnest($run_ids))),
hits AS (SELECT * FROM names WHERE regexp_matches(coalesce(name, ''), $anchor)
    OR regexp_matches(coalesce(op_type, ''), $anchor))
SELECT p.phase, count(*) AS kernels FROM _phase p JOIN kernels k USING (run_id, seq)
JOIN hits h ON h.name IS NOT DISTINCT FROM k.name AND h.op_type IS NOT DISTINCT FROM k.op_type GROUP BY ALL;
