-- Export `perfetto`: the facts of one run that fix the exported file's time base and its free process ids.
-- A JSON run's events are written at their own ts again (start_ns - time_base_ns, with the base written
-- as baseTimeNanoseconds), so the file lines up with the original; a CSV run (time_base_ns NULL) keeps
-- its absolute µs. Process ids the export adds (the annotation process, and for CSV runs the HCCL one)
-- are numbered above every numeric pid and device id of the run, so they never take one of its own.
-- Inputs: runs, kernels, trace_events, tracks.
-- Parameters:
--   $run_id INTEGER: the run
-- Output: rows, one for the run:
--   base_ns BIGINT: what is subtracted from start_ns to give the file's own ts (0 for CSV runs)
--   has_base BOOLEAN: the run came from a file with a time base (a JSON run): write baseTimeNanoseconds
--   top_pid BIGINT: the largest numeric pid or device id of the run (0 when none)
--   first_start_ns BIGINT: the run's first kernel (report layers' zero)
--   trace_start_ns BIGINT: the run's first event (report timeline's zero)
--   rank INTEGER: the run's rank
--   world_size INTEGER: its world size
--   device_name VARCHAR: its device name
--   device_id INTEGER: its device id
SELECT coalesce(r.time_base_ns, 0) AS base_ns, r.time_base_ns IS NOT NULL AS has_base,
    greatest(0,
        coalesce((SELECT max(TRY_CAST(pid AS BIGINT)) FROM trace_events WHERE run_id = $run_id), 0),
        coalesce((SELECT max(TRY_CAST(pid AS BIGINT)) FROM tracks WHERE run_id = $run_id), 0),
        coalesce((SELECT max(device_id) FROM kernels WHERE run_id = $run_id), 0))::BIGINT AS top_pid,
    r.first_start_ns, coalesce(r.trace_start_ns, r.first_start_ns) AS trace_start_ns,
    r.rank, r.world_size, r.device_name, r.device_id
FROM runs r WHERE r.run_id = $run_id;
