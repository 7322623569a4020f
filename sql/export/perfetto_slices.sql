-- Export `perfetto`: the args of each pass, layer, prologue and epilogue slice as JSON text, every time an exact
-- decimal (µs from integer ns, s with 9 decimals), never a double: pass, layer, kernels, sum_us, wall_us,
-- start_us (report layers': from the run's first kernel), start_s (report timeline's: from the trace's
-- first event), comm_count, overlap_us (the units inside a pass) and one <category>_us per category.
-- Inputs: _pf_units (perfetto_units.sql).
-- Parameters:
--   $categories VARCHAR[]: the profile's categories, in _rules.cat_ord order
--   $first_ns BIGINT: the run's first kernel start (report layers' zero)
--   $trace_start_ns BIGINT: the run's first event (report timeline's zero)
-- Output: rows, one per pass, layer, prologue and epilogue, in (start, pass first, layer) order:
--   unit VARCHAR: pass, layer, prologue or epilogue
--   pass BIGINT: the pass
--   layer BIGINT: the layer (NULL for a pass, a prologue or an epilogue)
--   start_ns BIGINT: first kernel start
--   end_ns BIGINT: last kernel end
--   args VARCHAR: the slice's args, JSON text
SELECT unit, pass, layer, start_ns, end_ns,
    '{"pass":' || pass || CASE WHEN unit = 'layer' THEN ',"layer":' || layer ELSE '' END
    || ',"kernels":' || kernels || ',"sum_us":' || us(sum_ns)::VARCHAR || ',"wall_us":' || us(end_ns - start_ns)::VARCHAR
    || ',"start_us":' || us(start_ns - $first_ns)::VARCHAR || ',"start_s":' || sec(start_ns - $trace_start_ns)::VARCHAR
    || ',"comm_count":' || comm_count || coalesce(',"overlap_us":' || us(overlap_ns)::VARCHAR, '')
    || array_to_string(list_transform(range(len($categories)), lambda i: ',' || to_json($categories[i + 1] || '_us')::VARCHAR
                                      || ':' || us(coalesce(cat_ns[i::INTEGER], 0))::VARCHAR), '')
    || '}' AS args
FROM _pf_units
ORDER BY start_ns, unit = 'pass' DESC, layer NULLS FIRST, pass;
