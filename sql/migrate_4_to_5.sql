-- Schema v4 -> v5: stored segmentations, so layers and categories are plain SQL (tracedb segment).
-- Inputs: a v4 store.
-- segmentations: one row per segmented run: the options used (JSON text, as given and as resolved: the
--   anchor pattern, layers, blocks per layer, window, pass rule), the notes the segmentation printed, when
--   and by which tracedb. Re-segmenting a run replaces its row and its kernel_segments rows.
-- kernel_segments: one row per counted kernel of a segmented run: pass, layer, block (NULL outside every
--   pass window: only the backward work after a forward pass in the default full window; layer NULL with a
--   pass: the pass's prologue), its category under the profile, and the module that launched it (GPU traces
--   with host events; NULL otherwise).
-- kernel_layers: the view a user queries: kernel_segments with the kernel's name, op type, kind, times and
--   the run's name, tags, rank and device. Plain SQL: it works from the duckdb CLI.
CREATE TABLE segmentations (
    run_id        INTEGER PRIMARY KEY,
    options       VARCHAR,          -- JSON
    notes         VARCHAR[],
    segmented_at  TIMESTAMP,
    tracedb_version VARCHAR
);
CREATE TABLE kernel_segments (
    run_id        INTEGER NOT NULL,
    seq           BIGINT NOT NULL,
    pass          BIGINT,
    layer         BIGINT,
    block         BIGINT,
    category      VARCHAR,
    module        VARCHAR
);
CREATE VIEW kernel_layers AS
    SELECT r.name AS run, s.pass, s.layer, s.block, s.category, s.module, k.name, k.op_type, k.kind,
        k.start_ns, k.dur_ns, k.seq, r.run_id, r.tags, r.rank, r.device_name, r.format
    FROM kernel_segments s
    JOIN kernels k USING (run_id, seq)
    JOIN runs r USING (run_id);
