-- Passes that are mostly idle: wall time (first kernel start to last kernel end) of which more than
-- $share has no kernel running, with the largest idle gap and the unit it lies before. A serving trace's
-- first pass may spend most of its wall waiting for the host (SGLang's prefill: 2.4 ms of kernels in 497 ms
-- of prologue).
-- Inputs: _assigned.
-- Parameters:
--   $share DOUBLE: the idle share of the wall above which a pass is listed (0.5)
-- Output: rows, one per such pass, in (run_id, pass) order:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   wall_ns BIGINT: its wall time
--   idle_ns HUGEINT: time with no kernel running
--   gap_ns BIGINT: the largest idle gap
--   unit VARCHAR: the unit of the kernel after that gap (prologue | layer | epilogue)
--   layer BIGINT: its layer (NULL outside a layer)
WITH gaps AS (
    SELECT run_id, pass, unit, CASE WHEN unit = 'layer' THEN layer END AS layer, start_ns,
        greatest(start_ns - max(end_ns) OVER (PARTITION BY run_id, pass ORDER BY start_ns, seq
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS gap_ns
    FROM _assigned
), per_pass AS (
    SELECT a.run_id, a.pass, max(a.end_ns) - min(a.start_ns) AS wall_ns
    FROM _assigned a GROUP BY ALL
), idle AS (
    SELECT run_id, pass, sum(gap_ns) AS idle_ns, max(gap_ns) AS gap_ns,
        arg_max(unit, (gap_ns, -start_ns)) AS unit, arg_max(layer, (gap_ns, -start_ns)) AS layer
    FROM gaps WHERE gap_ns IS NOT NULL GROUP BY ALL
)
SELECT p.run_id, p.pass, p.wall_ns, i.idle_ns, i.gap_ns, i.unit, i.layer
FROM per_pass p JOIN idle i USING (run_id, pass)
WHERE i.idle_ns > $share * p.wall_ns
ORDER BY p.run_id, p.pass;
