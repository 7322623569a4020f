-- The clock differences clock alignment estimates (engine/jobs/align.py): for each consistent instance of a
-- collective met by two or more runs (alignable: collectives_match.sql), its end on each run against its end on the instance's anchor (the
-- member of lowest rank, then lowest run id), summarised per (anchor, run) pair by the median. The median
-- of end differences is the estimator because a collective ends almost together on every member (the last
-- data arrives everywhere within a link latency) while its start does not (ranks arrive late); the median
-- ignores the minority of instances whose end on one rank was held back (a preempted stream, an event
-- recorded late), where a mean would be dragged by them. quantile_disc keeps it an integer ns of the data.
-- Inputs: _coll_match (collectives_match.sql).
-- Parameters: none.
-- Output: rows, one per (anchor run, other run) that share instances:
--   anchor_run INTEGER: the instance's anchor member
--   run_id INTEGER: the other member
--   diff_ns BIGINT: median over their shared instances of (anchor's end - this run's end)
--   instances BIGINT: how many instances they share
WITH m AS (
    SELECT run_id, end_ns,
        first_value(run_id) OVER w AS anchor_run, first_value(end_ns) OVER w AS anchor_end
    FROM _coll_match
    WHERE alignable
    WINDOW w AS (PARTITION BY grp, mkey ORDER BY rank NULLS LAST, run_id)
)
SELECT anchor_run, run_id, quantile_disc(anchor_end - end_ns, 0.5) AS diff_ns, count(*) AS instances
FROM m
WHERE run_id <> anchor_run
GROUP BY ALL
ORDER BY anchor_run, run_id;
