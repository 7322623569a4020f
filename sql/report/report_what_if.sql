-- Report `what-if`: each edit's predicted window beside the measured one (engine/reports/what_if.py replays
-- the dependency graph and fills _wi_rows).
-- Inputs: _wi_rows (run_id, step, edit, measured_ns, predicted_ns, pos), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $job VARCHAR: the name of the row of a job replayed as one (report what-if --job: _wi_rows.run_id NULL)
-- Output: rows, one per run and edit (each edit alone, then all of them together), in the order given:
--   run VARCHAR: the run's name; with --job, job (N runs)
--   rank INTEGER: its rank; NULL when unknown or on a --job row
--   step BIGINT: the window's step; NULL: the whole trace
--   edit VARCHAR: what was changed
--   measured_us DECIMAL(23,3): the window's wall time as measured
--   predicted_us DECIMAL(23,3): its wall time after the edit, by the replay
--   saving_us DECIMAL(23,3): measured - predicted
--   saving_pct DECIMAL(7,2): the saving as a % of the measured
SELECT coalesce(r.name, $job) AS run, r.rank, w.step, w.edit,
    CAST(w.measured_ns / 1000 AS DECIMAL(23,3)) AS measured_us,
    CAST(w.predicted_ns / 1000 AS DECIMAL(23,3)) AS predicted_us,
    CAST((w.measured_ns - w.predicted_ns) / 1000 AS DECIMAL(23,3)) AS saving_us,
    CAST(round(100.0 * (w.measured_ns - w.predicted_ns) / nullif(w.measured_ns, 0), 2) AS DECIMAL(7,2)) AS saving_pct
FROM _wi_rows w LEFT JOIN runs r USING (run_id)
WHERE w.run_id IN (SELECT unnest($run_ids)) OR w.run_id IS NULL
ORDER BY w.pos;
