-- A kept segmentation's values, before it is restored: kernel phases are forward, backward or optimizer
-- (gradients input or weight; evidence annotation, autograd, name or order), a kernel once; the stream
-- tables are the kept phase's kernels and the runs with phase rows (segment_stream.sql); the category
-- rules and the category of every (name, op type) are the ones the profile gives now (categories.sql, run
-- just before on the same runs: ~0.01 s on a job of 128 ranks). A phase 'sideways', a doubled or moved
-- category fails one of them.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `phase`, `stream_pick`, `stream_runs`,
--   `rules`, `cats`: the kept tables of those names in tracedb_cache, base tables of the shapes tracedb
--   segment makes (snapshot_catalog.sql).
-- Inputs: the kept tables; TEMP _rules and _cats, the profile's rules and the runs' categories made afresh
--   (tracedb.engine.segmentation.categories.categorize_kernels).
-- Parameters:
--   $phase VARCHAR: the phase the kept segmentation segmented (forward | backward)
-- Output: rows, one per check that fails (none: the values hold), worst first:
--   what VARCHAR: what is wrong, in words
WITH picks AS (
    SELECT run_id, seq FROM {phase} WHERE phase = $phase
), fails AS (
    SELECT 1 AS rank, concat(count(*), ' kernel phase rows say ', string_agg(DISTINCT
        coalesce(phase, 'NULL') || '/' || coalesce(grad, 'NULL') || '/' || coalesce(evidence, 'NULL'), ', '
        ORDER BY coalesce(phase, 'NULL') || '/' || coalesce(grad, 'NULL') || '/' || coalesce(evidence, 'NULL'))) AS what
    FROM {phase}
    WHERE phase IS NULL OR phase NOT IN ('forward', 'backward', 'optimizer') OR grad NOT IN ('input', 'weight')
       OR evidence IS NULL OR evidence NOT IN ('annotation', 'autograd', 'name', 'order')
    HAVING count(*) > 0
    UNION ALL
    SELECT 2, concat('its kernel phases hold ', count(*) - count(DISTINCT (run_id, seq)), ' kernels more than once')
    FROM {phase} HAVING count(*) <> count(DISTINCT (run_id, seq))
    UNION ALL
    SELECT 3, 'its stream is not the kernels of its phase'
    WHERE (SELECT count(*) FROM {stream_pick}) <> (SELECT count(*) FROM picks)
       OR EXISTS (SELECT run_id, seq FROM {stream_pick} EXCEPT SELECT run_id, seq FROM picks)
       OR (SELECT count(*) FROM {stream_runs}) <> (SELECT count(DISTINCT run_id) FROM {phase})
       OR EXISTS (SELECT run_id FROM {stream_runs} EXCEPT SELECT run_id FROM {phase})
    UNION ALL
    SELECT 4, 'its category rules are not the profile''s'
    WHERE (SELECT count(*) FROM {rules}) <> (SELECT count(*) FROM _rules)
       OR EXISTS (SELECT * FROM {rules} EXCEPT SELECT * FROM _rules)
    UNION ALL
    SELECT 5, concat(count(*), ' kernel names of another category than the profile gives them, or of several')
    FROM ((SELECT * FROM {cats} EXCEPT ALL SELECT * FROM _cats)
          UNION ALL (SELECT * FROM _cats EXCEPT ALL SELECT * FROM {cats}))
    HAVING count(*) > 0
)
SELECT what FROM fails ORDER BY rank, what;
