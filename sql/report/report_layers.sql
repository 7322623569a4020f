-- Report `layers`: one row per (run, pass, layer) of the selected passes; the prologue (kernels of a
-- full window before the first layer boundary) is a row with an empty layer, first in its pass, and the
-- epilogue (the work after the last layer: segment_assign.sql) one last in its pass.
-- Placeholder `category_columns` (built by tracedb.engine.reports.registry from the profile's category order,
--   identifiers quoted by tracedb.sql.ident): one <category>_us column per category.
-- Placeholders `roofline_columns` and `roofline_join` (tracedb.engine.reports.roofline, --roofline): the
--   columns tflops_s and pct_peak and the join of _rl_kernels (roofline_kernels.sql) they read; else empty.
-- Inputs: _assigned, runs; with --roofline _rl_kernels.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $absolute BOOLEAN: start_us and end_us in the store's absolute time instead of from the run's first
--     kernel
-- Output: rows, one per (run, pass, layer):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
--   kernels BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   wall_us DECIMAL(23,3): first kernel start to last kernel end
--   start_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
--   end_us DECIMAL(23,3): relative to the run's first kernel unless --absolute
--   <category>_us DECIMAL(38,3): time of the category's kernels, one column per category in the profile's
--     order
--   comm_count BIGINT: communication kernels
--   [tflops_s] DECIMAL(18,3): --roofline: the layer's FLOPs / the time of its kernels with FLOPs, TFLOP/s
--   [pct_peak] DECIMAL(7,1): --roofline: its ideal time at the device's peak over its measured time, %;
--     empty above 100 %
--   unit VARCHAR: prologue | layer | epilogue; the prologue and epilogue rows have no layer, and every format but
--     Arrow prints their unit in the layer column
SELECT r.name AS run, a.pass, a.layer, count(*) AS kernels,
    us(sum(a.dur_ns)) AS sum_us, us(max(a.end_ns) - min(a.start_ns)) AS wall_us,
    us(min(a.start_ns) - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS start_us,
    us(max(a.end_ns) - CASE WHEN $absolute THEN 0 ELSE r.first_start_ns END) AS end_us,
    {category_columns},
    count(*) FILTER (WHERE a.is_comm) AS comm_count,{roofline_columns}
    a.unit
FROM _assigned a JOIN runs r USING (run_id){roofline_join}
GROUP BY a.run_id, r.name, r.first_start_ns, a.pass, a.layer, a.unit
ORDER BY list_position($run_ids, a.run_id), a.pass, a.unit = 'epilogue', a.layer NULLS FIRST;
