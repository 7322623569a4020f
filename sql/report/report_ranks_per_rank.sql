-- Report `ranks --per-rank`: one row per (pass, layer, rank) of the compared passes, with the rank's
-- compute, communication and wait figures (ranks_units.sql) and its compute time against the layer's
-- median.
-- Inputs: _rk_layers, _rk_cmp, runs.
-- Parameters: none.
-- Output: rows, one per (pass, layer, rank):
--   pp_stage INTEGER: the rank's pipeline stage; NULL outside a pipeline (the terminal and
--     Markdown tables drop the column then)
--   pass BIGINT: the pass
--   layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
--   model_layer BIGINT: the layer's number in the model (the terminal and Markdown tables drop the
--     column outside a pipeline, where it is the layer)
--   rank INTEGER: the rank
--   run VARCHAR: its run
--   compute_us DECIMAL(23,3): union of its non-communication kernels' intervals
--   comm_us DECIMAL(23,3): union of its communication ops' intervals
--   wall_us DECIMAL(23,3): first start to last end of its kernels and communication ops in the layer
--   collectives BIGINT: its communication ops in the layer
--   wait_us DECIMAL(23,3): summed over the layer's collectives: the latest arrival - its arrival
--   late_us DECIMAL(23,3): summed over the layer's collectives: its arrival - the earliest arrival
--   skew DECIMAL(12,3): (its compute - the layer's median) / median
--   slowest BOOLEAN: the layer's slowest rank
--   unit VARCHAR: prologue | layer | epilogue | run (a job with no layers to find: the whole run)
SELECT CASE WHEN l.pp_stage >= 0 THEN l.pp_stage END AS pp_stage, l.pass, l.layer, c.model_layer, l.rank,
    r.name AS run, us(l.compute_ns) AS compute_us, us(l.comm_ns) AS comm_us,
    us(l.wall_ns) AS wall_us, l.collectives, us(l.wait_ns) AS wait_us, us(l.late_ns) AS late_us,
    ratio3(l.compute_ns - c.median_ns, c.median_ns) AS skew, coalesce(l.rank = c.slowest_rank, false) AS slowest,
    CASE l.lk WHEN -1 THEN 'prologue' WHEN -2 THEN 'epilogue' WHEN -3 THEN 'run' ELSE 'layer' END AS unit
FROM _rk_layers l JOIN _rk_cmp c USING (pp_stage, pass, lk) JOIN runs r USING (run_id)
ORDER BY l.pp_stage, l.pass, l.lk = -2, l.lk, l.rank;
