-- The GPU agents of a rocprofv3 JSON results file, with their names.
-- Inputs: TEMP _rocprof_gpus.
-- Parameters: none.
-- Output: rows, one per distinct (device, name), by device: device_id and device_name.
SELECT DISTINCT device_id, device_name FROM _rocprof_gpus ORDER BY 1;
