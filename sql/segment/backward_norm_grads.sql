-- The kernels of a backward pass that compute a normalisation's gradient though their names do not say so:
-- an RMSNorm or LayerNorm written as separate PyTorch ops (transformers' eager models: pow, mean, rsqrt, mul)
-- runs its gradient as plain elementwise and reduction kernels, and only the autograd node around their launch
-- (`autograd::engine::evaluate_function: RsqrtBackward0`, `PowBackward0`, `MeanBackward1`,
-- `NativeLayerNormBackward0`, `FusedRMSNormAffineFunctionBackward`) says they are a norm's. The backward layer
-- boundary (segment_assign.sql) cuts after a layer's last norm gradient, so it needs them; without them it took
-- the next layer's QKV and input-norm gradients on every generated eager training model.
-- A launch is inside such a node when the node is open on the launching thread at the launch call's start;
-- the nodes matched here do not nest in each other, so at most one is.
-- Inputs: kernels, host_events (first_launches and enclosing: launch_macros.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _bwd_norm, one row per such kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
-- TEMP _bwd_norm_nodes and _bwd_norm_launches are scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _bwd_norm_nodes AS
SELECT run_id, pid, tid, start_ns, start_ns + dur_ns AS end_ns
FROM host_events
WHERE run_id IN (SELECT unnest($run_ids)) AND cat = 'cpu_op'
  AND starts_with(name, 'autograd::engine::evaluate_function: ')
  AND regexp_matches(name, '(?i)norm\w*backward|RsqrtBackward|PowBackward|MeanBackward|VarMeanBackward');

CREATE OR REPLACE TEMP TABLE _bwd_norm_launches AS
SELECT run_id, seq, run_id AS host_run_id, pid, tid, call_ns AS t FROM first_launches($run_ids)
WHERE EXISTS (SELECT 1 FROM _bwd_norm_nodes);

CREATE OR REPLACE TEMP TABLE _bwd_norm AS
SELECT DISTINCT launch_run AS run_id, launch_seq AS seq FROM enclosing('_bwd_norm_launches', '_bwd_norm_nodes');
DROP TABLE _bwd_norm_nodes;
DROP TABLE _bwd_norm_launches;
