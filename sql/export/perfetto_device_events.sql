-- Export `perfetto`: one slice of a run's device activity events, in file order (seq), from the placement
-- of perfetto_device.sql. The export reads the run in slices of seq (perfetto_chunks.sql) so that it never
-- holds all of a large run's JSON text at once.
-- Inputs: the table macro _pf_device (perfetto_device.sql).
-- Parameters:
--   $run_id INTEGER: the run
--   $base_ns BIGINT: subtracted from start_ns (the run's time_base_ns, 0 for CSV runs)
--   $hccl_pid BIGINT: the pid of the HCCL process made for a CSV run's collectives
--   $lo BIGINT: the first seq of the slice
--   $hi BIGINT: the seq after the slice (NULL: to the end)
-- Output: rows, one per device activity of the slice, by seq:
--   event VARCHAR: the event, JSON text
SELECT event FROM _pf_device($run_id, $base_ns, $hccl_pid)
WHERE seq >= $lo AND ($hi IS NULL OR seq < $hi)
ORDER BY seq;
