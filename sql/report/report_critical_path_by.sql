-- Report `critical-path --by category|kernel|layer|stage|module|step|rank`: the path's time per key; the rows of a run add
-- up to its window's wall time, as its segments tile the window.
-- Keys: category; kernel (a kernel's own stretches; every other segment under its category in
-- parentheses, so that nothing drops out of the sum); layer (pass, layer and unit; segments of no pass
-- under none); stage (the stage in its layer of a segment's kernel, or of the kernel a host call launched;
-- none outside a layer); module (the launching module of a device activity's own stretch or of a launch
-- call, as kernel: every gap under its category in parentheses); step (the window's step); rank (the run of
-- the segment's node: with --job, which ranks the job's path runs through, and for how long).
-- Inputs: _cp_path (critical_path_segments.sql), runs, kernel_names.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $by VARCHAR: category | kernel | layer | stage | module | step | rank
--   $job VARCHAR: the run column of the one path of --job (its segments lie on several runs)
-- Output: rows, one per path (a run, or with --job the job) and key, the longest first:
--   run VARCHAR: the run's name; with --job, $job
--   rank INTEGER: its rank (--by rank: the key's); NULL when unknown, or with --job but for --by rank
--   step BIGINT: the window's step; NULL: the whole trace
--   pass BIGINT: --by layer: the pass; else NULL
--   layer BIGINT: --by layer: the layer; else NULL
--   key VARCHAR: the category; the kernel's short name, or (category); the unit (prologue, layer,
--     epilogue, none); the stage (none); the module, or (category); step; or the run of the segment's node
--   name VARCHAR: --by kernel: the kernel's full name (terminal and Markdown tables show key instead, told
--     apart); else NULL
--   segments BIGINT: the path's segments with this key
--   dur_us DECIMAL(38,3): their time
--   pct DECIMAL(7,2): of the window's wall time, %
WITH path_keys AS (
    SELECT p.*,
        CASE WHEN $by = 'kernel' AND p.segment IN ('kernel', 'comm', 'memcpy', 'memset') THEN p.kernel END AS full_name,
        CASE $by WHEN 'category' THEN p.category
                 WHEN 'kernel' THEN CASE WHEN p.segment IN ('kernel', 'comm', 'memcpy', 'memset')
                                         THEN coalesce(kn.short_name, p.kernel) ELSE '(' || p.category || ')' END
                 WHEN 'layer' THEN coalesce(p.unit, 'none')
                 WHEN 'stage' THEN coalesce(p.stage, 'none')
                 WHEN 'module' THEN CASE WHEN p.segment <> 'gap' AND p.module IS NOT NULL THEN p.module
                                         ELSE '(' || p.category || ')' END
                 WHEN 'rank' THEN r.name
                 ELSE 'step' END AS key,
        CASE WHEN $by = 'layer' THEN p.pass END AS by_pass, CASE WHEN $by = 'layer' THEN p.layer END AS by_layer
    FROM _cp_path p LEFT JOIN kernel_names kn ON kn.name = p.kernel JOIN runs r ON r.run_id = p.run_id
    WHERE p.run_id IN (SELECT unnest($run_ids))
), windows AS (
    SELECT path, step, max(end_ns) - min(start_ns) AS wall_ns FROM _cp_path GROUP BY ALL
)
SELECT CASE WHEN k.path = 0 THEN $job ELSE any_value(r.name) END AS run,
    CASE WHEN k.path = 0 AND $by <> 'rank' THEN NULL ELSE any_value(r.rank) END AS rank, k.step, k.by_pass AS pass,
    k.by_layer AS layer, k.key, k.full_name AS name,
    count(*) AS segments, CAST(sum(k.end_ns - k.start_ns) / 1000 AS DECIMAL(38,3)) AS dur_us,
    CAST(round(100.0 * sum(k.end_ns - k.start_ns) / any_value(w.wall_ns), 2) AS DECIMAL(7,2)) AS pct
FROM path_keys k JOIN windows w ON w.path = k.path AND w.step IS NOT DISTINCT FROM k.step
JOIN runs r ON r.run_id = k.run_id
GROUP BY k.path, k.step, k.by_pass, k.by_layer, k.key, k.full_name
ORDER BY k.path, sum(k.end_ns - k.start_ns) DESC, k.key, k.step, k.by_pass, k.by_layer, k.full_name;
