-- Which runs have the shapes kernel_work's formulas read, asked once for a batch of runs (32 runs asked one
-- by one took 26 ms): kernels of Ascend CSVs and exports with input shapes (ingest_work_npu), and
-- PyTorch ops with recorded shapes (record_shapes=True) that a kernel's launch can be matched to
-- (ingest_work_ops). A JSON trace without record_shapes skips the launch join.
-- Inputs: kernel_texts, trace_events of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (or a store's runs without kernel_work rows, after a migration)
-- Output: rows, one per run of $run_ids, in run_id order:
--   run_id INTEGER: the run
--   npu BOOLEAN: a kernel text of the run has input shapes
--   ops BOOLEAN: a cpu_op of the run has recorded shapes (its extra_args start with their dims)
SELECT r.run_id,
    r.run_id IN (SELECT run_id FROM kernel_texts
                 WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND input_shapes IS NOT NULL) AS npu,
    r.run_id IN (SELECT run_id FROM trace_events
                 WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND cat = 'cpu_op'
                   AND starts_with(extra_args, '{"dims"')) AS ops
FROM (SELECT unnest($run_ids::INTEGER[]) AS run_id) r
ORDER BY r.run_id;
