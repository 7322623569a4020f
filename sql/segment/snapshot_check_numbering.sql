-- A kept segmentation's numbering, before it is restored:
--   each run's passes are 0..n-1, once each, with one window each (around its anchors, exactly so in the
--   strict window, ending before the next pass's) and at most one step row;
--   every layer row is in one of those passes; its unit is prologue (no block), layer or epilogue (no
--   layer); a layer row's layer and half are the ones its block gives (segment_assign.sql: block // blocks
--   per layer, backward counted from the pass's last expected layer; block % blocks per layer), and its
--   block is one of its pass's anchors' (or the one before the first, in a leading fragment); the layers
--   of a pass run without a hole;
--   each pass's anchors are numbered 0..n-1, their blocks on from the pass's first block, which only a
--   leading fragment (pass 0) has above 0 (segment_passes.sql); its anchor count, span and partial flag
--   are its anchors'; anchors, pass splits and pass groups are there once each.
-- Renumbered layers, blocks or passes, or doubled rows, fail one of them.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `assigned`, `passes`, `windows`,
--   `pass_info`, `anchors`, `anchor_pass`, `pass_split`, `pass_groups`: the kept tables of those names
--   in tracedb_cache, base tables of the shapes tracedb segment makes (snapshot_catalog.sql).
-- Inputs: runs, the kept tables.
-- Parameters:
--   $run_ids INTEGER[]: the kept segmentation's runs
--   $blocks_per_layer INTEGER: its anchors per layer
--   $reverse BOOLEAN: its passes are backward ones (layers numbered from the last)
--   $window VARCHAR: its window, strict | full
-- Output: rows, one per check that fails (none: the numbering holds), worst first:
--   what VARCHAR: what is wrong, in words
WITH names AS (
    SELECT run_id, name FROM runs
), passes AS (
    SELECT run_id, count(*) AS n, count(DISTINCT pass) AS d, min(pass) AS lo, max(pass) AS hi
    FROM {passes} GROUP BY ALL
), layers AS (
    SELECT run_id, pass, count(DISTINCT layer) AS d, min(layer) AS lo, max(layer) AS hi
    FROM {assigned} WHERE layer IS NOT NULL GROUP BY ALL
), anchors AS (
    SELECT run_id, pass, count(*) AS n, count(DISTINCT k) AS d, min(k) AS lo, max(k) AS hi,
        min(start_ns) AS first_start, max(end_ns) AS last_end, min(block) AS first_block,
        bool_and(block - k = lowest) AS blocks_from_first
    FROM (SELECT *, min(block) OVER (PARTITION BY run_id, pass) AS lowest FROM {anchor_pass})
    GROUP BY run_id, pass
), fails AS (
    SELECT 1 AS rank, concat('run ''', coalesce(r.name, p.run_id::VARCHAR), ''': its passes are numbered ', p.lo,
                             '..', p.hi, ' in ', p.n, ' rows, not 0..', p.d - 1, ' once each') AS what
    FROM passes p LEFT JOIN names r USING (run_id)
    WHERE p.lo <> 0 OR p.hi <> p.d - 1 OR p.n <> p.d OR p.run_id NOT IN (SELECT unnest($run_ids::INTEGER[]))
    UNION ALL
    SELECT 2, concat('run ''', coalesce(r.name, coalesce(p.run_id, w.run_id)::VARCHAR), ''' pass ',
                     coalesce(p.pass, w.pass), ': ', coalesce(w.n, 0), ' windows', CASE WHEN w.n = 1
                     THEN ', not around its anchors, or overlapping the next one' END)
    FROM {passes} p
    FULL JOIN (SELECT run_id, pass, count(*) AS n, min(win_start) AS win_start, max(win_end) AS win_end,
                   lead(min(win_start)) OVER (PARTITION BY run_id ORDER BY pass) AS next_start
               FROM {windows} GROUP BY run_id, pass) w USING (run_id, pass)
    LEFT JOIN names r USING (run_id)
    WHERE p.pass IS NULL OR w.n IS DISTINCT FROM 1
       OR NOT (w.win_start <= p.first_start AND w.win_end >= p.last_end
               AND w.win_end < coalesce(w.next_start, w.win_end + 1))
       OR $window = 'strict' AND (w.win_start <> p.first_start OR w.win_end <> p.last_end)
    UNION ALL
    SELECT 3, concat('run ''', coalesce(r.name, i.run_id::VARCHAR), ''' pass ', i.pass, ': ', i.n,
                     ' step rows, for a pass it does not have or more than once')
    FROM (SELECT run_id, pass, count(*) AS n FROM {pass_info} GROUP BY ALL) i LEFT JOIN names r USING (run_id)
    WHERE i.n > 1 OR (i.run_id, i.pass) NOT IN (SELECT run_id, pass FROM {passes})
    UNION ALL
    SELECT 4, concat('run ''', coalesce(r.name, a.run_id::VARCHAR), ''': ', count(*), ' layer rows in pass ', a.pass,
                     ', which it does not have')
    FROM {assigned} a LEFT JOIN names r USING (run_id)
    WHERE (a.run_id, a.pass) NOT IN (SELECT run_id, pass FROM {passes})
    GROUP BY a.run_id, r.name, a.pass
    UNION ALL
    SELECT 5, concat('run ''', coalesce(r.name, a.run_id::VARCHAR), ''' pass ', a.pass, ': ', count(*),
                     ' rows of unit ', coalesce(a.unit, 'NULL'), ', layer ', coalesce(a.layer::VARCHAR, 'NULL'),
                     ', block ', coalesce(a.block::VARCHAR, 'NULL'), ', half ', coalesce(a.half::VARCHAR, 'NULL'),
                     ': not what their block gives')
    FROM {assigned} a JOIN {passes} p USING (run_id, pass) LEFT JOIN names r USING (run_id)
    WHERE a.unit IS NULL OR a.unit NOT IN ('prologue', 'layer', 'epilogue')
       OR (a.unit = 'prologue') <> (a.block IS NULL)
       OR a.half IS DISTINCT FROM a.block % $blocks_per_layer
       OR a.block NOT BETWEEN p.block_base - CASE WHEN p.block_base > 0 THEN 1 ELSE 0 END
                          AND p.block_base + p.anchors - 1
       OR a.unit <> 'layer' AND a.layer IS NOT NULL
       OR a.unit = 'layer' AND a.layer IS DISTINCT FROM
            CASE WHEN $reverse THEN p.expected // $blocks_per_layer - 1 - a.block // $blocks_per_layer
                 ELSE a.block // $blocks_per_layer END
    GROUP BY a.run_id, r.name, a.pass, a.unit, a.layer, a.block, a.half
    UNION ALL
    SELECT 6, concat('run ''', coalesce(r.name, l.run_id::VARCHAR), ''' pass ', l.pass, ': layers ', l.lo, '..', l.hi,
                     ' with ', l.hi - l.lo + 1 - l.d, ' of them missing')
    FROM layers l LEFT JOIN names r USING (run_id)
    WHERE l.hi - l.lo + 1 <> l.d
    UNION ALL
    SELECT 7, concat('run ''', coalesce(r.name, coalesce(p.run_id, a.run_id)::VARCHAR), ''' pass ',
                     coalesce(p.pass, a.pass), ': ', coalesce(a.n, 0), ' anchors numbered ', a.lo, '..', a.hi,
                     ' for ', coalesce(p.anchors, 0), ' anchors from block ', p.block_base, ' of ', p.expected)
    FROM {passes} p FULL JOIN anchors a USING (run_id, pass) LEFT JOIN names r USING (run_id)
    WHERE p.pass IS NULL OR a.pass IS NULL OR a.n <> p.anchors OR a.d <> a.n OR a.lo <> 0 OR a.hi <> a.n - 1
       OR NOT a.blocks_from_first OR p.block_base IS DISTINCT FROM a.first_block
       OR p.first_start IS DISTINCT FROM a.first_start
       OR p.last_end IS DISTINCT FROM a.last_end OR p.partial IS DISTINCT FROM (p.anchors <> p.expected)
       OR p.block_base <> 0 AND (p.pass <> 0 OR p.block_base IS DISTINCT FROM p.expected - p.anchors)
       OR p.block_base IS NULL
    UNION ALL
    SELECT 8, what || ' more than once' FROM (
        SELECT 'its anchors hold a kernel' AS what FROM {anchors} HAVING count(*) <> count(DISTINCT (run_id, seq))
        UNION ALL
        SELECT 'its anchors by pass hold a kernel' FROM {anchor_pass}
        HAVING count(*) <> count(DISTINCT (run_id, seq))
        UNION ALL
        SELECT 'its pass splits name a run' FROM {pass_split} HAVING count(*) <> count(DISTINCT run_id)
        UNION ALL
        SELECT 'its pass groups name a group' FROM {pass_groups} HAVING count(*) <> count(DISTINCT (run_id, grp)))
)
SELECT what FROM fails ORDER BY rank, what;
