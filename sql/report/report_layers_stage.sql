-- Report `layers --by stage`: per pass and layer kind, the time of each stage of its layers (layer_stages.sql):
-- attention, then a dense layer's ffn or an MoE layer's router, dispatch, experts, combine and shared
-- experts: the per-module table of a performance review, one block of rows per kind of layer.
-- Inputs: _assigned, _stages and _layer_kinds (layer_stages.sql), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, pass, layer kind, stage), stages in the order they run:
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   layer_kind VARCHAR: dense/full, moe/sliding, ... (layer_stages.sql)
--   stage VARCHAR: attention | router | dispatch | experts | combine | shared | ffn
--   layers BIGINT: the pass's layers of this kind
--   kernels BIGINT: the stage's kernels over those layers
--   sum_us DECIMAL(38,3): their time
--   per_layer_us DECIMAL(23,3): sum_us / layers, rounded half up to the ns
--   share_pct DECIMAL(6,2): share of the time of the pass's layers of this kind, 2 decimals
WITH staged AS (
    SELECT a.run_id, a.pass, a.layer, k.layer_kind, s.stage, a.dur_ns
    FROM _assigned a
    JOIN _stages s USING (run_id, seq)
    JOIN _layer_kinds k ON k.run_id = a.run_id AND k.pass = a.pass AND k.layer = a.layer
    WHERE a.unit = 'layer'
), kinds AS (
    SELECT run_id, pass, layer_kind, count(DISTINCT layer) AS layers, sum(dur_ns) AS kind_ns
    FROM staged GROUP BY ALL
)
SELECT r.name AS run, s.pass, s.layer_kind, s.stage, any_value(k.layers) AS layers, count(*) AS kernels,
    us(sum(s.dur_ns)) AS sum_us, us(mean_ns(sum(s.dur_ns), any_value(k.layers))) AS per_layer_us,
    round(100.0 * sum(s.dur_ns) / any_value(k.kind_ns), 2)::DECIMAL(6, 2) AS share_pct
FROM staged s
JOIN kinds k USING (run_id, pass, layer_kind)
JOIN runs r USING (run_id)
GROUP BY s.run_id, r.name, s.pass, s.layer_kind, s.stage
ORDER BY list_position($run_ids, s.run_id), s.pass, s.layer_kind,
    list_position(['attention', 'router', 'dispatch', 'experts', 'combine', 'shared', 'ffn'], s.stage);
