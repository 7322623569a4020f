-- Report `ranks`: how the ranks of a job differ, one row per (pass, layer) of the compared passes: the
-- spread of the ranks' compute time (ranks_units.sql), the slowest rank and its skew, and the rank that
-- arrived last at the layer's collectives. The prologue (kernels of a full window before the first
-- layer boundary) is a row with an empty layer, first in its pass.
-- Inputs: _rk_cmp.
-- Parameters: none.
-- Output: rows, one per (pipeline stage, pass, layer):
--   pp_stage INTEGER: the pipeline stage whose ranks are compared; NULL outside a pipeline (the
--     terminal and Markdown tables drop the column then)
--   pass BIGINT: the pass
--   layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
--   model_layer BIGINT: the layer's number in the model (its stage's first model layer + layer; the terminal
--     and Markdown tables drop the column outside a pipeline, where it is the layer)
--   ranks BIGINT: the ranks compared
--   min_compute_us DECIMAL(23,3): the least compute time (union of the non-communication kernels)
--   median_compute_us DECIMAL(23,3): the lower median compute time
--   max_compute_us DECIMAL(23,3): the most compute time
--   slowest_rank INTEGER: the rank with the most compute time; empty when every rank has the same
--   skew DECIMAL(12,3): (max - median) / median
--   straggler BOOLEAN: skew at or above the report's threshold (what --stragglers counts)
--   collectives BIGINT: the layer's collectives matched across ranks
--   last_arrival_rank INTEGER: the rank that arrived last at the collective of the widest arrival spread
--   arrival_spread_us DECIMAL(23,3): that collective's latest - earliest aligned start
--   unit VARCHAR: prologue | layer | epilogue | run (a job with no layers to find: the whole run)
SELECT CASE WHEN pp_stage >= 0 THEN pp_stage END AS pp_stage, pass, layer, model_layer, ranks,
    us(min_ns) AS min_compute_us, us(median_ns) AS median_compute_us,
    us(max_ns) AS max_compute_us, slowest_rank, skew, straggler, collectives,
    last_rank AS last_arrival_rank, us(spread_ns) AS arrival_spread_us,
    CASE lk WHEN -1 THEN 'prologue' WHEN -2 THEN 'epilogue' WHEN -3 THEN 'run' ELSE 'layer' END AS unit
FROM _rk_cmp
ORDER BY pp_stage, pass, lk = -2, lk;
