-- Report `layers --clusters`: per layer type (from the model config) statistics over the selected passes.
-- Inputs: _assigned, _layer_types(layer, layer_type), runs. Parameters: $run_ids.
-- Placeholder `category_shares`: one <category>_pct column per category (share of the type's kernel time).
-- Columns: run, layer_type, layers, avg_wall_us, avg_sum_us, <category>_pct...
WITH per_layer AS (
    SELECT a.run_id, a.pass, a.layer, t.layer_type, max(a.end_ns) - min(a.start_ns) AS wall_ns, sum(a.dur_ns) AS sum_ns
    FROM _assigned a JOIN _layer_types t USING (layer) GROUP BY ALL
), per_cat AS (
    SELECT a.run_id, t.layer_type, a.cat_ord, sum(a.dur_ns) AS ns
    FROM _assigned a JOIN _layer_types t USING (layer) GROUP BY ALL
)
SELECT r.name AS run, l.layer_type, count(*) AS layers,
    us(round(avg(l.wall_ns))::BIGINT) AS avg_wall_us, us(round(avg(l.sum_ns))::BIGINT) AS avg_sum_us,
    {category_shares}
FROM per_layer l JOIN runs r USING (run_id)
GROUP BY l.run_id, r.name, l.layer_type
ORDER BY list_position($run_ids, l.run_id), min(l.layer), l.layer_type;
