-- Units of a pass (a layer, its prologue or epilogue) that one communication op dominates: one op holds
-- more than $share of the unit's device time. A pipeline stage's send/receive waits for the next stage
-- (Megatron stage 0: a 158.6 ms batchSendRecv after micro-batch 1's last layer, against ~2.1 ms a layer).
-- Inputs: _assigned, kernels.
-- Parameters:
--   $share DOUBLE: the share of the unit's time one op must exceed (0.5)
-- Output: rows, one per such unit, in (run_id, pass, unit, layer) order:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   unit VARCHAR: prologue | layer | epilogue
--   layer BIGINT: the layer (NULL outside a layer)
--   name VARCHAR: the op
--   op_ns BIGINT: its duration
--   unit_ns HUGEINT: the unit's device time
WITH units AS (
    SELECT run_id, pass, unit, CASE WHEN unit = 'layer' THEN layer END AS layer, seq, dur_ns, is_comm,
        sum(dur_ns) OVER (PARTITION BY run_id, pass, unit, CASE WHEN unit = 'layer' THEN layer END) AS unit_ns
    FROM _assigned
)
SELECT u.run_id, u.pass, u.unit, u.layer, k.name, u.dur_ns AS op_ns, u.unit_ns
FROM units u JOIN kernels k USING (run_id, seq)
WHERE u.is_comm AND u.dur_ns > $share * u.unit_ns
ORDER BY u.run_id, u.pass, u.unit, u.layer;
