-- Schema v10 -> v11: a stored segmentation says which stage of its layer each kernel is and what kind of
-- layer that is (sql/segment/layer_stages.sql), so the per-stage table of a performance review (attention,
-- router, dispatch, experts, combine, shared, ffn) and one layer per kind are plain SQL over kernel_layers.
-- Runs segmented before keep NULL in both until `tracedb segment` runs on them again.
-- Inputs: a v10 store.
-- Parameters: none.
-- Output: TABLE kernel_segments, new columns:
--   stage VARCHAR: the kernel's stage in its layer: attention | ffn | router | dispatch | experts | combine |
--     shared; NULL outside a layer (prologue, epilogue, optimizer, outside every pass)
--   layer_kind VARCHAR: its layer's kind, '<dense|moe>/<full|sliding|linear|variant N>'; NULL outside a layer
ALTER TABLE kernel_segments ADD COLUMN stage VARCHAR;
ALTER TABLE kernel_segments ADD COLUMN layer_kind VARCHAR;
