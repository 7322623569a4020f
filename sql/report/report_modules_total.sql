-- Report `modules --by module`: device time per (pass, layer, module), with its share of the run's time.
-- Inputs: _attr, kernels, runs, _assigned (may be empty: without an anchor tracedb.engine makes it with the
--   columns run_id, seq, pass, layer and unit only).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $by_path BOOLEAN: the module's instance path, module_path, instead of its layer-free role, module
--   $passes_only BOOLEAN: only the kernels of the selected passes (--pass N, steady, auto), none outside them
-- Output: rows, one per (run, pass, layer, module):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass; NULL: outside every window
--   layer BIGINT: the layer; NULL: the prologue or epilogue (unit), or outside every window
--   module VARCHAR: the launching module
--   kernels BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   share_pct DECIMAL(6,2): share of the run's device time, 2 decimals
--   unit VARCHAR: prologue | layer | epilogue; NULL outside every window
WITH rows AS (
    SELECT m.run_id, a.pass, a.layer, a.unit, CASE WHEN $by_path THEN m.module_path ELSE m.module END AS module,
        count(*) AS n, sum(k.dur_ns) AS ns
    FROM _attr m JOIN kernels k USING (run_id, seq) LEFT JOIN _assigned a USING (run_id, seq)
    WHERE NOT $passes_only OR a.run_id IS NOT NULL
    GROUP BY ALL
)
SELECT r.name AS run, x.pass, x.layer, x.module, x.n AS kernels, us(x.ns) AS sum_us,
    round(100.0 * x.ns / nullif(sum(x.ns) OVER (PARTITION BY x.run_id), 0), 2)::DECIMAL(6, 2) AS share_pct, x.unit
FROM rows x JOIN runs r USING (run_id)
ORDER BY list_position($run_ids, x.run_id), x.pass NULLS FIRST, x.unit = 'epilogue', x.layer NULLS FIRST, x.ns DESC,
    x.module;
