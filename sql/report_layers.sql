-- Report `layers`: one row per (run, pass, layer) of the selected passes; the prologue (kernels of a
-- full window before the first layer boundary) is a row with an empty layer, first in its pass.
-- Inputs: _assigned, runs. Parameters: $run_ids (output order), $absolute.
-- Placeholder `category_columns` (built by tracedb.engine.reports from the profile's category order,
--   identifiers quoted by tracedb.sql.ident): one <category>_us column per category.
-- Columns: run, pass, layer, kernels, sum_us, wall_us, start_us, end_us, <category>_us..., comm_count.
SELECT r.name AS run, a.pass, a.layer, count(*) AS kernels,
    us(sum(a.dur_ns)) AS sum_us, us(max(a.end_ns) - min(a.start_ns)) AS wall_us,
    us(min(a.start_ns) - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS start_us,
    us(max(a.end_ns) - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS end_us,
    {category_columns},
    count(*) FILTER (WHERE a.is_comm) AS comm_count
FROM _assigned a JOIN runs r USING (run_id)
GROUP BY a.run_id, r.name, r.first_start_ns, a.pass, a.layer
ORDER BY list_position($run_ids, a.run_id), a.pass, a.layer NULLS FIRST;
