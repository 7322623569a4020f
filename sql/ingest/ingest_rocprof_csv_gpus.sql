-- The devices a rocprofv3 CSV kernel trace dispatches to, with their names.
-- Inputs: TEMP _rcsv_rows, _rcsv_devices.
-- Parameters: none.
-- Output: rows, one per distinct (device, name), by device: device_id and device_name.
SELECT DISTINCT d.device_id, d.device_name FROM _rcsv_rows r JOIN _rcsv_devices d
USING (agent) WHERE r.part = 'kernel_trace' ORDER BY 1;
