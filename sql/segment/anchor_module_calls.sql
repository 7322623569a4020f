-- How many kernels of each name every call of the model's blocks launched, for the anchor the module tree
-- proposes (tracedb.engine.segmentation.anchors: the attention names of which each block call launches
-- exactly one).
-- Inputs: _kernel_blocks (anchor_blocks.sql), _stream (the kernels of the phase being segmented).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per run, block call and kernel name, in that order:
--   run_id INTEGER: the run
--   cls VARCHAR: the block class
--   call_ns BIGINT: the block call (the start of its nn.Module frame)
--   inst VARCHAR: the block instance called ('TransformerBlock_7')
--   name VARCHAR: a kernel name the call launched
--   n BIGINT: how many kernels of that name
--   dur_ns HUGEINT: their device time
SELECT b.run_id, b.cls, b.call_ns, b.inst, k.name, count(*) AS n, sum(k.dur_ns) AS dur_ns
FROM _kernel_blocks b JOIN _stream k USING (run_id, seq)
WHERE b.cls IS NOT NULL AND b.run_id IN (SELECT unnest($run_ids))
GROUP BY ALL
ORDER BY ALL;
