-- The devices of a rocpd database's kernel dispatches, with their names.
-- Inputs: TEMP _rpd_kernels.
-- Parameters: none.
-- Output: rows, one per distinct (device, name), by device: device_id and device_name.
SELECT DISTINCT device_id, device_name FROM _rpd_kernels ORDER BY 1;
