-- What the profiler's step breakdown (step_times, from step_trace_time.csv) says each rank computed, summed over
-- its steps: the only account of how long a rank without kernels worked.
-- Inputs: step_times.
-- Parameters:
--   $r INTEGER[]: the job's runs
-- Output: rows, one per run of $r with a step row: its run_id (INTEGER), computing ns and free ns summed
--   (HUGEINT; free NULL when no step has it), in no set order.
SELECT run_id, sum(computing_ns), sum(free_ns) FROM step_times WHERE run_id IN (SELECT unnest($r)) GROUP BY run_id;
