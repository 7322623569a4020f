-- Store the segmentation of the bound runs (tracedb segment): replaces each run's earlier one.
-- Inputs: kernels, _seg_all (the _assigned rows of every pass of each phase segmented, segment_assign.sql,
--   with phase, step and microbatch: tracedb.engine.segmentation.persist), _phase (kernel_phases.sql), _cats (the
--   profile's category of each name: categories.sql), _rules, _attr (each kernel's module:
--   attribute_modules.sql, or attribute_none.sql: empty), _seg_stages(run_id INTEGER, seq BIGINT, stage
--   VARCHAR) and _seg_kinds(run_id INTEGER, phase VARCHAR, pass BIGINT, layer BIGINT, layer_kind VARCHAR)
--   (layer_stages.sql's _stages and _layer_kinds of every phase: tracedb.engine.segmentation.persist), _seg_model
--   (model_layers.sql: each pipeline stage's run, its stage and the model layer of its layer 0).
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $options VARCHAR: JSON: the options used, as given and as resolved
--   $notes VARCHAR[][]: each run's notes of the segmentation (its own and those about no run in particular), in
--     the order of $run_ids
--   $version VARCHAR: the tracedb version
-- Output: rows in segmentations (one per run) and kernel_segments (one per counted kernel of each run; pass,
--   layer, block, phase, step and microbatch NULL for the kernels outside every window, with the category
--   from the profile's rules all the same; unit 'optimizer' for the optimizer's kernels; an epilogue
--   kernel has no layer; stage and layer_kind for the kernels of a layer only; pp_stage for every kernel of a
--   pipeline stage's run, model_layer for the kernels of a layer: layer + its stage's first model layer).
DELETE FROM kernel_segments WHERE run_id IN (SELECT unnest($run_ids));
DELETE FROM segmentations WHERE run_id IN (SELECT unnest($run_ids));
INSERT INTO segmentations
SELECT unnest($run_ids), $options, unnest($notes::VARCHAR[][]), now()::TIMESTAMP, $version;
INSERT INTO kernel_segments BY NAME
SELECT k.run_id, k.seq, a.pass, CASE WHEN a.unit = 'layer' THEN a.layer END AS layer, a.block,
    coalesce(ra.category, c.category) AS category, m.module, a.phase, a.step, a.microbatch,
    coalesce(a.unit, CASE WHEN ph.phase = 'optimizer' THEN 'optimizer' END) AS unit,
    CASE WHEN a.phase = 'backward' THEN ph.grad END AS grad,
    CASE WHEN a.unit = 'layer' THEN st.stage END AS stage, CASE WHEN a.unit = 'layer' THEN lk.layer_kind END AS layer_kind,
    pp.pp_stage, CASE WHEN a.unit = 'layer' THEN a.layer + coalesce(pp.layer_base, 0) END AS model_layer
FROM kernels k
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
LEFT JOIN _seg_all a ON a.run_id = k.run_id AND a.seq = k.seq
-- a kernel in a pass has the category its report has (by name, then by module: module_categories.sql)
LEFT JOIN (SELECT DISTINCT category, cat_ord FROM _rules) ra ON ra.cat_ord = a.cat_ord
LEFT JOIN _attr m ON m.run_id = k.run_id AND m.seq = k.seq
LEFT JOIN _phase ph ON ph.run_id = k.run_id AND ph.seq = k.seq
LEFT JOIN _seg_stages st ON st.run_id = k.run_id AND st.seq = k.seq
LEFT JOIN _seg_model pp ON pp.run_id = k.run_id
LEFT JOIN _seg_kinds lk ON lk.run_id = a.run_id AND lk.phase = a.phase AND lk.pass = a.pass AND lk.layer = a.layer
WHERE k.run_id IN (SELECT unnest($run_ids));
