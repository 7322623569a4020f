-- A setting of the connection (memory_limit, threads, max_vacuum_tasks): an API user's limits applied to a side
-- store, a setting put back after a checkpoint, the threads and memory an ingest plans with.
-- Inputs: none.
-- Parameters:
--   $s VARCHAR: the setting's name
-- Output: rows, one: the setting's value.
SELECT current_setting($s);
