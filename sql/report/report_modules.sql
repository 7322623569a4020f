-- Report `modules`: device time per (pass, layer, module, kernel), every kernel of the runs accounted
-- for: kernels outside any pass window (or every kernel, without an anchor) have an empty pass and layer.
-- Inputs: _attr, kernels, runs, _assigned (may be empty: without an anchor tracedb.engine makes it with the
--   columns run_id, seq, pass, layer and unit only).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $by_path BOOLEAN: the module's instance path, module_path, instead of its layer-free role, module
--   $passes_only BOOLEAN: only the kernels of the selected passes (--pass N, steady, auto), none outside them
-- Output: rows, one per (run, pass, layer, module, kernel):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass; NULL: outside every window
--   layer BIGINT: the layer; NULL: the prologue or epilogue (unit), or outside every window
--   module VARCHAR: the launching module
--   kernel VARCHAR: the kernel name
--   count BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   unit VARCHAR: prologue | layer | epilogue; NULL outside every window
WITH m AS (
    SELECT run_id, seq, CASE WHEN $by_path THEN module_path ELSE module END AS module FROM _attr
)
SELECT r.name AS run, a.pass, a.layer, m.module, k.name AS kernel, count(*) AS count, us(sum(k.dur_ns)) AS sum_us,
    a.unit
FROM m
JOIN kernels k USING (run_id, seq)
JOIN runs r USING (run_id)
LEFT JOIN _assigned a USING (run_id, seq)
WHERE NOT $passes_only OR a.run_id IS NOT NULL
GROUP BY m.run_id, r.name, a.pass, a.layer, a.unit, m.module, k.name
ORDER BY list_position($run_ids, m.run_id), a.pass NULLS FIRST, a.unit = 'epilogue', a.layer NULLS FIRST, sum(k.dur_ns) DESC,
    m.module, k.name;
