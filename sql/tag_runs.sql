-- `tracedb runs tag`: set and remove tags of some runs. Inputs: runs. Parameters: $run_ids, $drop (keys to
-- remove), $keys / $values (tags to set; a key already there gets the new value: map_concat keeps the last).
UPDATE runs SET tags = map_concat(
        map_from_entries(list_filter(map_entries(coalesce(tags, MAP {})),
                                     lambda e: NOT list_contains($drop::VARCHAR[], e.key))),
        map($keys::VARCHAR[], $values::VARCHAR[]))
WHERE run_id IN (SELECT unnest($run_ids::INTEGER[]));
