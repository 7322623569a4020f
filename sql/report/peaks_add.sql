-- One row of the device peaks, executed once per run and dtype.
-- Inputs: _peaks (peaks_table.sql).
-- Parameters:
--   $run_id INTEGER: the run
--   $device VARCHAR: the device
--   $dtype VARCHAR: the dtype; NULL: every dtype
--   $flops_s DOUBLE: dense FLOP/s; NULL when unknown
--   $bytes_s DOUBLE: HBM bytes/s; NULL when unknown
-- Output: TEMP _peaks, a row added.
INSERT INTO _peaks VALUES ($run_id, $device, $dtype, $flops_s, $bytes_s);
