-- Advise: the stretches of each run that a rule more specific than idle-gap and low-utilisation has explained,
-- so that those two generic rules count only the idle no other rule names (a time at stake is counted once):
--   pipeline-bubble  a pipeline stage's waits for the other stages (_adv_pp_waits), whether it fires or not:
--                    the schedule's own bubble is no stall either way;
--   sync-in-step     the bubble after each held synchronising call (_adv_sync_bubbles), where the rule fired;
--   launch-bound     each launch-bound stretch, from the idle before its first kernel to its last kernel's end
--                    (_adv_launch_spans), where the rule fired;
--   host-bound       the host's own work on the steps' critical paths (_cp_path, category host_op: the device
--                    waited for it), where the rule fired.
-- The intervals are merged per run into disjoint islands, each with the rules that claim it.
-- Inputs: _adv_pp_waits (advise_pipeline_waits.sql), _adv_sync_bubbles (advise_sync_in_step.sql),
--   _adv_launch_spans (advise_launch_bound.sql), _cp_path (critical_path_segments.sql, per run and step),
--   _adv_findings (the rules that fired).
-- Parameters: none.
-- Output: TEMP _adv_claimed, one row per island of claimed time:
--   run_id INTEGER: the run
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   rules VARCHAR: the rules claiming it, comma-separated
CREATE OR REPLACE TEMP TABLE _adv_claimed AS
WITH fired AS (
    SELECT DISTINCT rule, run_id FROM _adv_findings
), raw AS (
    SELECT run_id, 'pipeline-bubble' AS rule, s, e FROM _adv_pp_waits
    UNION ALL
    SELECT b.run_id, 'sync-in-step', b.idle_s, b.idle_s + b.ns FROM _adv_sync_bubbles b
    WHERE b.ns > 0 AND (b.run_id, 'sync-in-step') IN (SELECT run_id, rule FROM fired)
    UNION ALL
    SELECT l.run_id, 'launch-bound', l.idle_from_ns, l.end_ns FROM _adv_launch_spans l
    WHERE (l.run_id, 'launch-bound') IN (SELECT run_id, rule FROM fired)
    UNION ALL
    SELECT c.path::INTEGER, 'host-bound', c.start_ns, c.end_ns FROM _cp_path c
    WHERE c.category = 'host_op' AND (c.path::INTEGER, 'host-bound') IN (SELECT run_id, rule FROM fired)
), ordered AS (
    -- an island opens where an interval starts after every earlier one has ended
    SELECT *, CASE WHEN s >= max(e) OVER (PARTITION BY run_id ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING
                                                                             AND 1 PRECEDING)
                   THEN 1 ELSE 0 END AS opens
    FROM raw WHERE e > s
), islands AS (
    SELECT *, sum(opens) OVER (PARTITION BY run_id ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS island FROM ordered
)
SELECT run_id, min(s) AS s, max(e) AS e, string_agg(DISTINCT rule, ', ' ORDER BY rule) AS rules
FROM islands
GROUP BY run_id, island;
