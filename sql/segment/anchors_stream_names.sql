-- The distinct kernel names and op types of the stream of each run, for the anchor proposal (anchors.py
-- categorizes them once for every run).
-- Inputs: _stream (segment_stream.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per (run, name, op type) with a name:
--   run_id INTEGER: the run
--   name VARCHAR: the kernel name
--   op_type VARCHAR: its op type
SELECT DISTINCT run_id, name, op_type FROM _stream WHERE run_id IN (SELECT unnest($run_ids)) AND name IS NOT NULL;
