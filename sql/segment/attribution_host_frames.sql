-- Whether some of the runs were recorded with host frames a category can come from: a cpu_op, an
-- annotation or an nn.Module frame.
-- Inputs: host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one row:
--   framed BOOLEAN: such a frame exists
SELECT EXISTS (SELECT 1 FROM host_events WHERE run_id IN (SELECT unnest($run_ids)) AND
    (cat IN ('user_annotation', 'cpu_op', 'operator')
     OR cat = 'python_function' AND starts_with(name, 'nn.Module: '))) AS framed;
