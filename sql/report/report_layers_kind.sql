-- Report `layers --by kind`: one representative layer per pass and layer kind (layer_stages.sql): of a
-- hybrid model's sliding and full, dense and MoE, linear and full attention layers, the layer of each kind
-- whose time is the median of that kind's layers (the lower middle one for an even count, so it is a real
-- layer), with the kind's count and total beside it.
-- Placeholder `category_columns` (built by tracedb.engine.reports.registry from the profile's category order,
--   identifiers quoted by tracedb.sql.ident): one <category>_us column per category.
-- Inputs: _assigned, _layer_kinds (layer_stages.sql), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, pass, layer kind):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   layer_kind VARCHAR: dense/full, moe/sliding, ... (layer_stages.sql)
--   layers BIGINT: the pass's layers of this kind
--   total_us DECIMAL(38,3): their time together
--   share_pct DECIMAL(6,2): share of the pass's layer time, 2 decimals
--   layer BIGINT: the representative layer
--   kernels BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   wall_us DECIMAL(23,3): its first kernel start to last kernel end
--   <category>_us DECIMAL(38,3): time of the category's kernels in it, one column per category in the
--     profile's order
WITH per_layer AS (
    SELECT a.run_id, a.pass, a.layer, k.layer_kind, sum(a.dur_ns) AS ns
    FROM _assigned a JOIN _layer_kinds k ON k.run_id = a.run_id AND k.pass = a.pass AND k.layer = a.layer
    WHERE a.unit = 'layer'
    GROUP BY ALL
), ranked AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, pass, layer_kind ORDER BY ns, layer) AS r,
        count(*) OVER (PARTITION BY run_id, pass, layer_kind) AS layers,
        sum(ns) OVER (PARTITION BY run_id, pass, layer_kind) AS kind_ns,
        sum(ns) OVER (PARTITION BY run_id, pass) AS pass_ns
    FROM per_layer
), rep AS (
    SELECT * FROM ranked WHERE r = (layers + 1) // 2
)
SELECT r.name AS run, p.pass, p.layer_kind, p.layers, us(p.kind_ns) AS total_us,
    round(100.0 * p.kind_ns / p.pass_ns, 2)::DECIMAL(6, 2) AS share_pct, p.layer, count(*) AS kernels,
    us(sum(a.dur_ns)) AS sum_us, us(max(a.end_ns) - min(a.start_ns)) AS wall_us,
    {category_columns}
FROM rep p
JOIN _assigned a ON a.run_id = p.run_id AND a.pass = p.pass AND a.layer = p.layer AND a.unit = 'layer'
JOIN runs r ON r.run_id = p.run_id
GROUP BY p.run_id, r.name, p.pass, p.layer_kind, p.layers, p.kind_ns, p.pass_ns, p.layer
ORDER BY list_position($run_ids, p.run_id), p.pass, p.layer;
