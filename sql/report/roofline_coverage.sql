-- Report roofline: per run, its kernels and kernel time, and those of the kernels the report covers (the
-- assigned ones), for the note on which phases are covered.
-- Inputs: kernels (views.sql), _assigned (segment_assign.sql or run_wide.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run with kernels:
--   run_id INTEGER: the run
--   kernels BIGINT: its kernels
--   kernel_ns HUGEINT: their time
--   covered BIGINT: those assigned
--   covered_ns HUGEINT: their time
SELECT k.run_id, count(*) AS kernels, sum(k.dur_ns) AS kernel_ns, count(a.seq) AS covered,
coalesce(sum(a.dur_ns), 0) AS covered_ns FROM kernels k
LEFT JOIN (SELECT DISTINCT run_id, seq, dur_ns FROM _assigned) a USING (run_id, seq)
WHERE k.run_id IN (SELECT unnest($run_ids)) GROUP BY k.run_id;
