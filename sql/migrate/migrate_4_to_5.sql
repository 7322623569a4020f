-- Schema v4 -> v5: stored segmentations, so layers and categories are plain SQL (tracedb segment).
-- segmentations: one row per segmented run: the options used (JSON text, as given and as resolved: the
--   anchor pattern, layers, blocks per layer, window, pass rule), the notes the segmentation printed, when
--   and by which tracedb. Re-segmenting a run replaces its row and its kernel_segments rows.
-- kernel_segments: one row per counted kernel of a segmented run: pass, layer, block (NULL outside every
--   pass window: only the backward work after a forward pass in the default full window; layer NULL with a
--   pass: the pass's prologue), its category under the profile, and the module that launched it (GPU traces
--   with host events; NULL otherwise).
-- kernels: Ascend trace_view.json tasks that are runtime machinery (kind 'npu_task': notify waits, SDMA
--   copies, event records...) are not kernels (the kernels view leaves them out); runs ingested before are
--   reclassified here the way ingest_chrome_tasks.sql classifies new ones.
-- kernel_names: one row per distinct kernel name of the store with its readable short name (computed in
--   Python at ingest, tracedb.ingest.kernel_names; demangled, templates shortened, PyTorch elementwise ops
--   kept): `kernel_stats` and `kernel_layers` show it, so plain SQL sees it. Old stores get theirs from
--   `tracedb migrate`, which fills the table after this file.
-- The views of v5 (kernel_layers, the view a user queries: kernel_segments with the kernel and its run;
--   kernel_stats with the short name) are in views.sql, as every view.
-- Inputs: a v4 store; the macro npu_runtime_task (macros.sql).
-- Parameters: none.
-- Output: TABLE runs, new columns:
--   time_base_ns BIGINT: what the ingest added to the file's timestamps (Kineto's baseTimeNanoseconds; 0
--     when none; NULL for CSV runs, whose times are the file's)
--   trace_start_ns BIGINT: the file's first event, host side included (a CSV run's first kernel), in store
--     ns: where Perfetto's UI puts time zero
-- Output: TABLE segmentations, TABLE kernel_segments, TABLE kernel_names: columns as declared below.
-- Output: trace_events.kind of the runs ingested from trace_view.json before: 'npu_task' for runtime tasks,
--   'comm' for the HCCL collectives.
ALTER TABLE runs ADD COLUMN time_base_ns BIGINT;
ALTER TABLE runs ADD COLUMN trace_start_ns BIGINT;
UPDATE runs r SET trace_start_ns = coalesce(
    (SELECT min(t.start_ns) FROM trace_events t WHERE t.run_id = r.run_id AND t.ph IN ('X', 'M')), r.first_start_ns),
    time_base_ns = CASE WHEN r.format IN ('chrome-trace', 'ascend-trace-view') AND r.clock_domain <> 'unix-epoch'
                        THEN 0 END;
CREATE TABLE segmentations (
    run_id        INTEGER PRIMARY KEY,   -- the segmented run
    options       VARCHAR,          -- JSON
    notes         VARCHAR[],        -- the notes the segmentation printed
    segmented_at  TIMESTAMP,        -- when
    tracedb_version VARCHAR         -- by which tracedb
);
CREATE TABLE kernel_segments (
    run_id        INTEGER NOT NULL, -- the run
    seq           BIGINT NOT NULL,  -- the kernel (kernels.seq)
    pass          BIGINT,           -- NULL: outside every pass window
    layer         BIGINT,           -- NULL with a pass: the prologue
    block         BIGINT,           -- the anchor block (layer = block // blocks per layer)
    category      VARCHAR,          -- under the profile (by name, then by module)
    module        VARCHAR           -- the launching module's role; NULL without host events
);
CREATE TABLE kernel_names (
    name          VARCHAR PRIMARY KEY,   -- a kernel name of the store
    short_name    VARCHAR           -- its readable short name
);
UPDATE trace_events t SET kind = 'npu_task'
FROM runs r, tracks k
WHERE r.run_id = t.run_id AND r.format = 'ascend-trace-view' AND t.kind = 'kernel'
  AND npu_runtime_task(t.core_type, t.name)
  AND k.run_id = t.run_id AND k.pid = t.pid AND k.tid IS NOT DISTINCT FROM t.tid AND k.process_name = 'Ascend Hardware';
UPDATE trace_events t SET kind = CASE WHEN k.thread_name LIKE '%Communication%' AND starts_with(t.name, 'hcom_')
                                     THEN 'comm' ELSE 'npu_task' END
FROM runs r, tracks k
WHERE r.run_id = t.run_id AND r.format = 'ascend-trace-view' AND t.ph = 'X' AND t.cat IS NULL AND t.kind IS NULL
  AND k.run_id = t.run_id AND k.pid = t.pid AND k.tid IS NOT DISTINCT FROM t.tid AND k.process_name = 'HCCL';
