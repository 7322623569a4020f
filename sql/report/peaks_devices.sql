-- Each run's name and device: the device the trace names, else the chip the profiler folder's metadata names
-- (ingest/ascend_info.py).
-- Inputs: runs (schema.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run:
--   run_id INTEGER: the run
--   name VARCHAR: its name
--   device VARCHAR: its device name; NULL when neither is known
SELECT run_id, name, coalesce(nullif(trim(device_name), ''), json_extract_string(metadata, '$.profiler_info.chip'))
       AS device
FROM runs WHERE run_id IN (SELECT unnest($run_ids));
