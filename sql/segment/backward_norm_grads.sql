-- The kernels of a backward pass that compute a normalisation's gradient though their names do not say so:
-- an RMSNorm or LayerNorm written as separate PyTorch ops (transformers' eager models: pow, mean, rsqrt, mul)
-- runs its gradient as plain elementwise and reduction kernels, and only the autograd node around their launch
-- (`autograd::engine::evaluate_function: RsqrtBackward0`, `PowBackward0`, `MeanBackward1`,
-- `NativeLayerNormBackward0`, `FusedRMSNormAffineFunctionBackward`) says they are a norm's. The backward layer
-- boundary (segment_assign.sql) cuts after a layer's last norm gradient, so it needs them; without them it took
-- the next layer's QKV and input-norm gradients on every generated eager training model.
-- A launch is inside such a node when the node is open on the launching thread at the launch call's start;
-- the nodes matched here do not nest in each other, so the latest that started before the call is the one.
-- Inputs: kernels, host_events.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _bwd_norm, one row per such kernel:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
CREATE OR REPLACE TEMP TABLE _bwd_norm AS
WITH nodes AS (
    SELECT run_id, pid, tid, start_ns, start_ns + dur_ns AS end_ns
    FROM host_events
    WHERE run_id IN (SELECT unnest($run_ids)) AND cat = 'cpu_op'
      AND starts_with(name, 'autograd::engine::evaluate_function: ')
      AND regexp_matches(name, '(?i)norm\w*backward|RsqrtBackward|PowBackward|MeanBackward|VarMeanBackward')
), launches AS (
    SELECT k.run_id, k.seq, h.pid, h.tid, h.start_ns AS t
    FROM kernels k JOIN host_events h ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id
    WHERE k.run_id IN (SELECT unnest($run_ids)) AND launch_call(h.cat)
      AND EXISTS (SELECT 1 FROM nodes)
)
SELECT DISTINCT l.run_id, l.seq
FROM launches l ASOF JOIN nodes n ON n.run_id = l.run_id AND n.pid = l.pid AND n.tid = l.tid AND n.start_ns <= l.t
WHERE l.t < n.end_ns;
