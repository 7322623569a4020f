-- `tracedb runs tag`: set and remove tags of some runs.
-- Inputs: runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $drop VARCHAR[]: keys to remove
--   $keys VARCHAR[]: tags to set (a key already there gets the new value: map_concat keeps the last)
--   $values VARCHAR[]: their values, in the order of $keys
-- Output: runs.tags of those runs updated.
UPDATE runs SET tags = map_concat(
        map_from_entries(list_filter(map_entries(coalesce(tags, MAP {})),
                                     lambda e: NOT list_contains($drop::VARCHAR[], e.key))),
        map($keys::VARCHAR[], $values::VARCHAR[]))
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
