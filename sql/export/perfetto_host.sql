-- Export `perfetto`: one slice (by seq, perfetto_chunks.sql) of the host events of one run (the host_events view: CPU ops, Python frames, runtime
-- calls, annotations), each as a Chrome trace event on its own pid and tid, with its category and the
-- correlation and External id that link runtime calls to kernels (module attribution reads them).
-- Inputs: host_events.
-- Parameters:
--   $run_id INTEGER: the run
--   $base_ns BIGINT: subtracted from start_ns (the run's time_base_ns)
--   $lo BIGINT: the first seq of the slice
--   $hi BIGINT: the seq after the slice (NULL: to the end)
-- Output: rows, one per host event of the slice, by seq:
--   event VARCHAR: the event, JSON text
SELECT
    -- written as text: a JSON function would turn the exact decimals into doubles
    '{"ph":"X",' || CASE WHEN cat IS NOT NULL THEN '"cat":' || to_json(cat) || ',' ELSE '' END
    || '"name":' || coalesce(to_json(name)::VARCHAR, 'null')
    || ',"pid":' || CASE WHEN regexp_full_match(pid, '-?[0-9]{1,15}') THEN pid::BIGINT::VARCHAR ELSE coalesce(to_json(pid)::VARCHAR, '0') END
    || ',"tid":' || CASE WHEN regexp_full_match(tid, '-?[0-9]{1,15}') THEN tid::BIGINT::VARCHAR ELSE coalesce(to_json(tid)::VARCHAR, '0') END
    || ',"ts":' || ((start_ns - $base_ns) * 0.001)::VARCHAR || ',"dur":' || (dur_ns * 0.001)::VARCHAR
    || ',"args":' || json_merge_patch('{}', json_object('correlation', correlation_id,
                                                        'External id', external_id))::VARCHAR || '}' AS event
FROM host_events WHERE run_id = $run_id AND seq >= $lo AND ($hi IS NULL OR seq < $hi)
ORDER BY seq;
