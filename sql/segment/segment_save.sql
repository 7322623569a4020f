-- Store the segmentation of the bound runs (tracedb segment): replaces each run's earlier one.
-- Inputs: kernels, _assigned (every pass of the runs: segment_assign.sql), _cats (the profile's category of
--   each name: categories.sql), _rules, _attr (each kernel's module: attribute_modules.sql, or
--   attribute_none.sql: empty).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $options VARCHAR: JSON: the options used, as given and as resolved
--   $notes VARCHAR[]: the notes the segmentation printed
--   $version VARCHAR: the tracedb version
-- Output: rows in segmentations (one per run) and kernel_segments (one per counted kernel of each run; pass,
--   layer and block NULL for the kernels outside every window, with the category from the profile's rules
--   all the same).
DELETE FROM kernel_segments WHERE run_id IN (SELECT unnest($run_ids));
DELETE FROM segmentations WHERE run_id IN (SELECT unnest($run_ids));
INSERT INTO segmentations
SELECT unnest($run_ids), $options, $notes, now()::TIMESTAMP, $version;
INSERT INTO kernel_segments
SELECT k.run_id, k.seq, a.pass, a.layer, a.block, coalesce(ra.category, c.category), m.module
FROM kernels k
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
LEFT JOIN _assigned a ON a.run_id = k.run_id AND a.seq = k.seq
-- a kernel in a pass has the category its report has (by name, then by module: module_categories.sql)
LEFT JOIN (SELECT DISTINCT category, cat_ord FROM _rules) ra ON ra.cat_ord = a.cat_ord
LEFT JOIN _attr m ON m.run_id = k.run_id AND m.seq = k.seq
WHERE k.run_id IN (SELECT unnest($run_ids));
