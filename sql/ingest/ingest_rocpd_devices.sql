-- The GPU indexes of a rocpd database that ran a kernel dispatch.
-- Inputs: TEMP _rpd_kernels (ingest_rocpd_tables.sql, resolved).
-- Parameters: none.
-- Output: rows, one per GPU, in order: its device_id.
SELECT DISTINCT device_id FROM _rpd_kernels WHERE is_gpu AND
device_id IS NOT NULL ORDER BY 1;
