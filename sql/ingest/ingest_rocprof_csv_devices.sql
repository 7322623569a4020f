-- The GPU indexes a rocprofv3 CSV kernel trace dispatches to, in order.
-- Inputs: TEMP _rcsv_rows, _rcsv_devices.
-- Parameters: none.
-- Output: rows, one per GPU, in order: its device_id.
SELECT DISTINCT d.device_id FROM _rcsv_rows r JOIN _rcsv_devices d USING (agent)
WHERE r.part = 'kernel_trace' AND d.is_gpu AND d.device_id IS NOT NULL ORDER BY 1;
