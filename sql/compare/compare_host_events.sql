-- Report compare --by kernel: how many of the runs have host events (kernels line up within their module
-- role only when every run says which module launched them).
-- Inputs: host_events (views.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, exactly one:
--   runs BIGINT: the runs of $run_ids with a host event
SELECT count(DISTINCT run_id) AS runs FROM host_events WHERE run_id IN (SELECT unnest($run_ids));
