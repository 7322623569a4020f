-- Report `layers --pass mean`: one row per (run, layer), the mean over the run's steady passes (the
-- selection in _assigned, chosen by tracedb.engine.segmentation.assignment.steady_passes), with the spread of sum_us.
-- Means are exact integer ns rounded half up (macro mean_ns), over the passes that have the layer;
--   kernels and comm_count are means with one decimal. No start/end: they differ from pass to pass.
-- Placeholders (built by tracedb.engine.reports.registry from the profile's category order, identifiers quoted by
--   tracedb.sql.ident): `category_sums`, one ns sum per category and pass; `category_means`, their means.
-- Inputs: _assigned, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, layer):
--   run VARCHAR: the run's name
--   pass VARCHAR: 'mean'
--   layer BIGINT: the layer; NULL: the prologue or the epilogue (unit)
--   passes BIGINT: passes that have the layer
--   kernels DECIMAL(18,1): mean kernel count
--   sum_us DECIMAL(23,3): mean time
--   sum_min_us DECIMAL(38,3): the smallest time over the passes
--   sum_max_us DECIMAL(38,3): the largest time over the passes
--   wall_us DECIMAL(23,3): mean wall (first kernel start to last kernel end)
--   <category>_us DECIMAL(23,3): mean time of the category's kernels, one column per category in the
--     profile's order
--   comm_count DECIMAL(18,1): mean count of communication kernels
--   unit VARCHAR: prologue | layer | epilogue
WITH per_pass AS (
    SELECT a.run_id, a.pass, a.layer, a.unit, count(*) AS n, sum(a.dur_ns) AS ns, max(a.end_ns) - min(a.start_ns) AS wall_ns,
        {category_sums},
        count(*) FILTER (WHERE a.is_comm) AS comm
    FROM _assigned a
    GROUP BY ALL
)
SELECT r.name AS run, 'mean' AS pass, p.layer, count(*) AS passes, mean1(sum(p.n), count(*)) AS kernels,
    us(mean_ns(sum(p.ns), count(*))) AS sum_us, us(min(p.ns)) AS sum_min_us, us(max(p.ns)) AS sum_max_us,
    us(mean_ns(sum(p.wall_ns), count(*))) AS wall_us,
    {category_means},
    mean1(sum(p.comm), count(*)) AS comm_count, p.unit
FROM per_pass p JOIN runs r USING (run_id)
GROUP BY p.run_id, r.name, p.layer, p.unit
ORDER BY list_position($run_ids, p.run_id), p.unit = 'epilogue', p.layer NULLS FIRST;
