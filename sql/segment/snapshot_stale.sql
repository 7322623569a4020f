-- The kept segmentations to forget: those holding any of the given runs (a run has one stored
-- segmentation; segmenting it again replaces it), and those holding a run that is gone.
-- Inputs: tracedb_cache.segmentations, runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs about to be segmented again, or deleted
-- Output: rows:
--   snap_id INTEGER: a kept segmentation to forget
SELECT snap_id FROM tracedb_cache.segmentations
WHERE list_has_any(run_ids, $run_ids::INTEGER[])
UNION
SELECT s.snap_id FROM (SELECT snap_id, unnest(run_ids) AS run_id FROM tracedb_cache.segmentations) s
WHERE s.run_id NOT IN (SELECT run_id FROM runs);
