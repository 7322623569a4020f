-- The digest of each run's rows that a segmentation reads: its kernels, its trace events (the host side:
-- phases, module frames, launches) and its row of runs. `tracedb segment` records it with what it keeps,
-- and a report restores a kept segmentation only while the runs give the same digest, so rows changed
-- since (tracedb sql --write, a migration) compute the segmentation afresh. Sums of hash() over whole rows
-- do not depend on row order; a doubled row changes the counts. On a job of 128 ranks (115 k kernels,
-- 363 k trace events) it costs 0.05-0.09 s, beside 0.06-0.08 s to restore and 2.0-2.6 s to segment; the
-- sums over chosen columns instead of whole rows would save ~0.03 s and miss a column a stage reads later.
-- Inputs: kernels, trace_events, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run of $run_ids that exists, by run_id:
--   run_id INTEGER: the run
--   kernels BIGINT: its kernels (the kernels view)
--   kernel_dur_ns HUGEINT: the sum of their durations (0: none)
--   kernel_start_ns HUGEINT: the sum of their starts (0: none)
--   kernel_hash HUGEINT: the sum of hash() of each kernel's row, every column of the kernels view
--   events BIGINT: its trace_events rows
--   event_hash HUGEINT: the sum of hash() of each of those rows
--   run_hash UBIGINT: hash() of its row of runs (name, tags, rank, ...)
WITH k AS (
    SELECT run_id, count(*) AS n, sum(dur_ns) AS dur, sum(start_ns) AS st, sum(hash(k)) AS h
    FROM kernels k WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) GROUP BY run_id
), e AS (
    SELECT run_id, count(*) AS n, sum(hash(e)) AS h
    FROM trace_events e WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) GROUP BY run_id
)
SELECT r.run_id, coalesce(k.n, 0) AS kernels, coalesce(k.dur, 0)::HUGEINT AS kernel_dur_ns,
    coalesce(k.st, 0)::HUGEINT AS kernel_start_ns, coalesce(k.h, 0)::HUGEINT AS kernel_hash,
    coalesce(e.n, 0) AS events, coalesce(e.h, 0)::HUGEINT AS event_hash, hash(r) AS run_hash
FROM runs r LEFT JOIN k USING (run_id) LEFT JOIN e USING (run_id)
WHERE r.run_id IN (SELECT unnest($run_ids::INTEGER[]))
ORDER BY r.run_id;
