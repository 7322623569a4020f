-- Advise: what the device-timeline rules (idle-gap, sync-in-step, low-utilisation) read, computed once: each
-- device's idle stretches (their steps: _adv_marks, advise_runs.sql).
-- The device timeline is the union of a device's kernels, communication ops, copies and fills (report
-- breakdown's activities); an idle stretch runs from the end of everything before an activity (the running
-- maximum of the earlier ends) to that activity's start, when it starts later.
-- Inputs: kernels.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _adv_idle, one row per idle stretch of a device of the runs:
--   run_id INTEGER: the run
--   device_id INTEGER: the device (-1: none recorded)
--   s BIGINT: its start (the end of the activities before it), ns
--   e BIGINT: its end (the next activity's start), ns
--   prev_step BIGINT: the Step Id (Ascend kernel_details.csv) of the activity that ends last before it; NULL
--     without Step Ids
--   first_ns BIGINT: the run's first activity's start
CREATE OR REPLACE TEMP TABLE _adv_idle AS
WITH acts AS (
    SELECT run_id, coalesce(device_id, -1) AS device_id, start_ns AS s, start_ns + dur_ns AS e, step_id
    FROM kernels
    WHERE run_id IN (SELECT unnest($run_ids)) AND kind IN ('kernel', 'comm', 'memcpy', 'memset')
), ordered AS (
    SELECT run_id, device_id, s,
        max(e) OVER w AS prev,
        arg_max(step_id, e) OVER w AS prev_step,
        min(s) OVER (PARTITION BY run_id) AS first_ns
    FROM acts
    WINDOW w AS (PARTITION BY run_id, device_id ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
)
SELECT run_id, device_id, prev AS s, s AS e, prev_step, first_ns FROM ordered WHERE prev IS NOT NULL AND s > prev;
