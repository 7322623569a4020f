-- One phase's assigned kernels, with their pass's step and micro-batch, added to what `tracedb segment`
-- stores (_seg_all, made empty with the columns of _assigned the first time; segment_save.sql reads it).
-- Inputs: _assigned (segment_assign.sql), _pass_info (segment_steps.sql).
-- Parameters:
--   $phase VARCHAR: the phase segmented
-- Output: TEMP _seg_all, every column of _assigned, then phase, step and microbatch; rows inserted.
CREATE TEMP TABLE IF NOT EXISTS _seg_all AS
SELECT a.*, ''::VARCHAR AS phase, i.step, i.microbatch
FROM _assigned a JOIN _pass_info i USING (run_id, pass) LIMIT 0;
INSERT INTO _seg_all SELECT a.*, $phase, i.step, i.microbatch FROM _assigned a
JOIN _pass_info i USING (run_id, pass);
