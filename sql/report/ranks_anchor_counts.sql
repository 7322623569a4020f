-- The anchors found in each rank (report ranks cuts every rank into passes of a common layer count only when
-- every rank ran as many anchors).
-- Inputs: TEMP _anchors.
-- Parameters: none.
-- Output: rows, one per run with an anchor: its run_id (INTEGER) and count of anchors (BIGINT).
SELECT run_id, count(*) FROM _anchors GROUP BY run_id;
