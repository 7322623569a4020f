-- A kept segmentation against the store's kernels, before it is restored: each kept layer row is a kernel
-- of its runs with the same start and duration, once; each unit (run, pass, unit, layer) holds as many
-- kernels and as much time as those kernels have in the store, each kernel of the category its name has
-- (TEMP _cats, made afresh and checked against the kept one by snapshot_check_values.sql); each pass holds
-- every kernel of its phase's stream inside its window (as segment_assign.sql takes them), and in the full
-- window the first and last passes reach the stream's first and last kernels; the anchors are the
-- stream's kernels the anchor pattern matches, numbered 0..n-1 per run (segment_anchors.sql), each in one
-- pass; each anchor and each kernel phase row is a kernel with its start and end, and a run with phase rows
-- has one per kernel.
-- A forged figure (durations scaled, rows doubled, kernels dropped or moved between passes or categories)
-- fails one of them, and the report computes the segmentation afresh.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `assigned`, `windows`, `phase`,
--   `stream_pick`, `stream_runs`, `anchors`, `anchor_pass`: the kept tables of those names in tracedb_cache,
--   base tables of the shapes tracedb segment makes (snapshot_catalog.sql).
-- Inputs: kernels, runs, the kept tables, TEMP _cats (categories.sql over the same runs: every (name, op
--   type) of their kernels).
-- Parameters:
--   $run_ids INTEGER[]: the kept segmentation's runs
--   $anchor VARCHAR: its anchor pattern (RE2, matched against the kernel name or its op type)
--   $window VARCHAR: its window, strict | full
-- Output: rows, one per check that fails (none: the kept rows are the store's), worst first:
--   what VARCHAR: what differs, in words
WITH labels AS (
    -- each (name, op type) once: its category and whether the anchor pattern matches it (segment_anchors.sql)
    SELECT name, op_type, cat_ord,
        regexp_matches(coalesce(name, ''), $anchor) OR regexp_matches(coalesce(op_type, ''), $anchor) AS anchor
    FROM _cats
), k AS MATERIALIZED (
    -- the kernels once, names joined once: the checks below compare numbers only (the names of a job of 128
    -- ranks, carried through each join, doubled the checks' time)
    SELECT k.run_id, k.seq, k.start_ns, k.dur_ns, l.cat_ord, l.anchor
    FROM kernels k
    LEFT JOIN labels l ON l.name IS NOT DISTINCT FROM k.name AND l.op_type IS NOT DISTINCT FROM k.op_type
    WHERE k.run_id IN (SELECT unnest($run_ids::INTEGER[]))
), names AS (
    SELECT run_id, name FROM runs
), kept AS (
    SELECT a.run_id, a.pass, a.unit, a.layer, count(*) AS n, sum(a.dur_ns) AS dur,
        count(k.seq) FILTER (WHERE k.start_ns = a.start_ns AND k.dur_ns = a.dur_ns
                              AND a.end_ns = a.start_ns + a.dur_ns AND k.cat_ord = a.cat_ord) AS same,
        count(k.seq) AS found, sum(k.dur_ns) AS store_dur
    FROM {assigned} a LEFT JOIN k ON k.run_id = a.run_id AND k.seq = a.seq
    GROUP BY ALL
), stream AS MATERIALIZED (
    -- a training run's kernels of the kept phase, every kernel of another run (segment_stream.sql)
    SELECT k.run_id, k.start_ns, k.anchor FROM k ANTI JOIN {stream_runs} t ON t.run_id = k.run_id
    UNION ALL
    SELECT k.run_id, k.start_ns, k.anchor FROM k SEMI JOIN {stream_pick} p ON p.run_id = k.run_id AND p.seq = k.seq
), member AS (
    SELECT s.run_id, w.pass, count(*) AS n
    FROM stream s ASOF JOIN {windows} w ON s.run_id = w.run_id AND s.start_ns >= w.win_start
    WHERE s.start_ns <= w.win_end
    GROUP BY ALL
), matched AS (
    SELECT run_id, count(*) FILTER (WHERE anchor) AS n, min(start_ns) AS lo, max(start_ns) AS hi
    FROM stream GROUP BY ALL
), anchors AS (
    SELECT run_id, count(*) AS n, count(DISTINCT idx) AS d, min(idx) AS lo, max(idx) AS hi FROM {anchors} GROUP BY ALL
), reach AS (
    SELECT run_id, min(win_start) FILTER (WHERE pass = 0) AS first_start, arg_max(win_end, pass) AS last_end
    FROM {windows} GROUP BY ALL
), per_pass AS (
    SELECT run_id, pass, sum(n) AS n FROM kept GROUP BY ALL
), phases AS (
    SELECT p.run_id, count(*) AS n, count(k.seq) FILTER (WHERE k.start_ns = p.start_ns AND k.dur_ns = p.dur_ns) AS same
    FROM {phase} p LEFT JOIN k ON k.run_id = p.run_id AND k.seq = p.seq
    GROUP BY ALL
), fails AS (
    SELECT 1 AS rank, concat('its layer rows hold ', sum(n), ' rows of runs it does not name') AS what
    FROM kept WHERE run_id NOT IN (SELECT unnest($run_ids::INTEGER[])) HAVING count(*) > 0
    UNION ALL
    SELECT 2, concat('run ''', coalesce(r.name, kept.run_id::VARCHAR), ''' pass ', kept.pass, ' ', kept.unit,
                     ' ' || kept.layer, ': ', kept.n, ' kernels, ', printf('%.3f', kept.dur / 1000), ' us kept; ',
                     kept.same, ' of them the store has as kept (start, duration, category), with ',
                     printf('%.3f', coalesce(kept.store_dur, 0) / 1000), ' us')
    FROM kept LEFT JOIN names r USING (run_id)
    WHERE kept.same <> kept.n OR kept.found <> kept.n OR kept.store_dur IS DISTINCT FROM kept.dur
    UNION ALL
    SELECT 3, concat('its layer rows hold ', count(*) - count(DISTINCT (run_id, seq)), ' kernels more than once')
    FROM {assigned} HAVING count(*) <> count(DISTINCT (run_id, seq))
    UNION ALL
    SELECT 4, concat('run ''', coalesce(r.name, coalesce(p.run_id, m.run_id)::VARCHAR), ''' pass ',
                     coalesce(p.pass, m.pass), ': ', coalesce(p.n, 0), ' kernels kept, ', coalesce(m.n, 0),
                     ' in its window in the store')
    FROM per_pass p FULL JOIN member m USING (run_id, pass) LEFT JOIN names r USING (run_id)
    WHERE p.n IS DISTINCT FROM m.n
    UNION ALL
    SELECT 5, concat('run ''', coalesce(r.name, p.run_id::VARCHAR), ''': ', p.n, ' kernel phase rows kept, ', p.same,
                     ' of them the store has as kept, of its ', coalesce(c.n, 0), ' kernels')
    FROM phases p LEFT JOIN names r USING (run_id)
    LEFT JOIN (SELECT run_id, count(*) AS n FROM k GROUP BY ALL) c USING (run_id)
    WHERE p.same <> p.n OR p.n IS DISTINCT FROM c.n
    UNION ALL
    SELECT 6, concat('run ''', coalesce(r.name, a.run_id::VARCHAR), ''': ', count(*),
                     ' anchors kept that the store has not, or with another start or end')
    FROM {anchor_pass} a LEFT JOIN k ON k.run_id = a.run_id AND k.seq = a.seq LEFT JOIN names r ON r.run_id = a.run_id
    WHERE k.seq IS NULL OR k.start_ns <> a.start_ns OR k.start_ns + k.dur_ns <> a.end_ns
    GROUP BY a.run_id, r.name
    UNION ALL
    SELECT 7, concat('run ''', coalesce(r.name, coalesce(m.run_id, a.run_id)::VARCHAR), ''': ', coalesce(a.n, 0),
                     ' anchors kept, numbered ', a.lo, '..', a.hi, '; the store has ', coalesce(m.n, 0),
                     ' kernels its anchor pattern matches')
    FROM matched m FULL JOIN anchors a USING (run_id) LEFT JOIN names r USING (run_id)
    WHERE coalesce(m.n, 0) <> coalesce(a.n, 0) OR a.d <> a.n OR a.lo <> 0 OR a.hi <> a.n - 1
    UNION ALL
    SELECT 7, 'its anchors by pass are not its anchors'
    WHERE (SELECT count(*) FROM {anchor_pass}) <> (SELECT count(*) FROM {anchors})
       OR EXISTS (SELECT run_id, seq FROM {anchor_pass} EXCEPT SELECT run_id, seq FROM {anchors})
    UNION ALL
    SELECT 8, concat('run ''', coalesce(r.name, w.run_id::VARCHAR), ''': its windows do not reach its first and last ',
                     'kernels')
    FROM reach w JOIN matched m USING (run_id) LEFT JOIN names r USING (run_id)
    WHERE $window = 'full' AND NOT (w.first_start <= m.lo AND w.last_end >= m.hi)
)
SELECT what FROM fails ORDER BY rank, what;
