-- Stage 1 of segmentation: the anchor kernels of the selected runs, numbered in time order.
-- The pattern runs once per distinct (name, op_type), not once per kernel: a trace has hundreds of
-- distinct names and millions of kernels.
-- Inputs: _stream (segment_stream.sql: the kernels of the phase being segmented).
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
--   $anchor VARCHAR: an RE2 pattern with search semantics, matched against the kernel name or its op type
-- Output: TEMP _anchors, one row per anchor kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   start_ns BIGINT: its start
--   end_ns BIGINT: its end (start_ns + dur_ns)
--   idx BIGINT: from 0 per run in (start_ns, seq) order
--   src_run INTEGER: the run again (anchor_breaks.sql reads it; candidates put their index in run_id)
CREATE OR REPLACE TEMP TABLE _anchors AS
WITH names AS (
    SELECT DISTINCT name, op_type FROM _stream WHERE run_id IN (SELECT unnest($run_ids))
), hits AS (
    SELECT name, op_type FROM names
    WHERE regexp_matches(coalesce(name, ''), $anchor) OR regexp_matches(coalesce(op_type, ''), $anchor)
)
SELECT k.run_id, k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns,
    row_number() OVER (PARTITION BY k.run_id ORDER BY k.start_ns, k.seq) - 1 AS idx, k.run_id AS src_run
FROM _stream k
JOIN hits h ON k.name IS NOT DISTINCT FROM h.name AND k.op_type IS NOT DISTINCT FROM h.op_type
WHERE k.run_id IN (SELECT unnest($run_ids));
