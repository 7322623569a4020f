-- Report `layers --clusters`: per layer type (from the model config) statistics over the selected passes.
-- Placeholder `category_shares`: one <category>_pct column per category (share of the type's kernel time).
-- Inputs: _assigned, TEMP _layer_types(layer BIGINT, layer_type VARCHAR) (tracedb.engine.reports.registry), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, layer type):
--   run VARCHAR: the run's name
--   layer_type VARCHAR: the layer type
--   layers BIGINT: (pass, layer) units of the type
--   avg_wall_us DECIMAL(23,3): mean layer wall
--   avg_sum_us DECIMAL(23,3): mean layer kernel time
--   <category>_pct DECIMAL(6,2): the category's share of the type's kernel time, one column per category
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
