-- Schema v4 -> v5: stored segmentations, so layers and categories are plain SQL (tracedb segment).
-- segmentations: one row per segmented run: the options used (JSON text, as given and as resolved: the
--   anchor pattern, layers, blocks per layer, window, pass rule), the notes the segmentation printed, when
--   and by which tracedb. Re-segmenting a run replaces its row and its kernel_segments rows.
-- kernel_segments: one row per counted kernel of a segmented run: pass, layer, block (NULL outside every
--   pass window: only the backward work after a forward pass in the default full window; layer NULL with a
--   pass: the pass's prologue), its category under the profile, and the module that launched it (GPU traces
--   with host events; NULL otherwise).
-- kernels: Ascend trace_view.json tasks that are runtime machinery (kind 'npu_task': notify waits, SDMA
--   copies, event records...) are not kernels; runs ingested before are reclassified here the way
--   ingest_chrome_tasks.sql classifies new ones.
-- kernel_names: one row per distinct kernel name of the store with its readable short name (computed in
--   Python at ingest, tracedb.ingest.kernel_names; demangled, templates shortened, PyTorch elementwise ops
--   kept): `kernel_stats` and `kernel_layers` show it, so plain SQL sees it. Old stores get theirs from
--   `tracedb migrate`, which fills the table after this file.
-- kernel_layers: the view a user queries: kernel_segments with the kernel's name, op type, kind, times and
--   the run's name, tags, rank and device. Plain SQL: it works from the duckdb CLI.
-- Inputs: a v4 store; the macro npu_runtime_task (macros.sql).
-- Parameters: none.
-- Output: TABLE runs, new columns:
--   time_base_ns BIGINT: what the ingest added to the file's timestamps (Kineto's baseTimeNanoseconds; 0
--     when none; NULL for CSV runs, whose times are the file's)
--   trace_start_ns BIGINT: the file's first event, host side included (a CSV run's first kernel), in store
--     ns: where Perfetto's UI puts time zero
-- Output: TABLE segmentations, TABLE kernel_segments, TABLE kernel_names: columns as declared below.
-- Output: VIEW kernel_layers, one row per kernel of a stored segmentation:
--   run VARCHAR: the run's name
--   pass BIGINT: kernel_segments.pass
--   layer BIGINT: kernel_segments.layer (NULL with a pass: the prologue)
--   block BIGINT: kernel_segments.block
--   category VARCHAR: kernel_segments.category
--   module VARCHAR: kernel_segments.module
--   name VARCHAR: the kernel name
--   short_name VARCHAR: its readable short name (kernel_names)
--   op_type VARCHAR: the op type (Ascend)
--   kind VARCHAR: kernel | comm | memcpy | memset | task
--   start_ns BIGINT: start
--   dur_ns BIGINT: duration
--   seq BIGINT: the kernel (kernels.seq)
--   run_id INTEGER: the run
--   tags MAP(VARCHAR, VARCHAR): the run's tags
--   rank INTEGER: the run's rank
--   device_name VARCHAR: the run's device name
--   format VARCHAR: the run's format
-- Output: VIEW kernel_stats, re-created with the short name, one row per run and kernel name:
--   run_id INTEGER: the run
--   run VARCHAR: its name
--   tags MAP(VARCHAR, VARCHAR): its tags
--   name VARCHAR: the kernel name
--   short_name VARCHAR: its readable short name (kernel_names)
--   op_type VARCHAR: the smallest seen with that name
--   count BIGINT: kernels of that name
--   sum_us DECIMAL(38,3): their time
--   avg_us DECIMAL(23,3): mean duration, rounded to the ns
--   min_us DECIMAL(23,3): shortest duration
--   max_us DECIMAL(23,3): longest duration
-- Output: VIEW kernels, re-created as in migrate_3_to_4.sql without the trace_events rows of kind
--   'npu_task'.
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
CREATE VIEW kernel_layers AS
    SELECT r.name AS run, s.pass, s.layer, s.block, s.category, s.module, k.name, n.short_name, k.op_type, k.kind,
        k.start_ns, k.dur_ns, k.seq, r.run_id, r.tags, r.rank, r.device_name, r.format
    FROM kernel_segments s
    JOIN kernels k USING (run_id, seq)
    JOIN runs r USING (run_id)
    LEFT JOIN kernel_names n ON n.name = k.name;
CREATE OR REPLACE VIEW kernel_stats AS
    SELECT s.run_id, r.name AS run, r.tags, s.name, n.short_name, s.op_type, s.count,
        s.sum_ns * 0.001 AS sum_us, round(s.avg_ns)::BIGINT * 0.001 AS avg_us, s.min_ns * 0.001 AS min_us,
        s.max_ns * 0.001 AS max_us
    FROM (SELECT run_id, name, min(op_type) AS op_type, count(*) AS count, sum(dur_ns) AS sum_ns,
                 avg(dur_ns) AS avg_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns
          FROM kernels GROUP BY run_id, name) s
    JOIN runs r USING (run_id)
    LEFT JOIN kernel_names n ON n.name = s.name;
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
CREATE OR REPLACE VIEW kernels AS
    SELECT * EXCLUDE (dup, metrics, extra_text) FROM kernels_raw WHERE dup IS NULL
    UNION ALL BY NAME
    SELECT run_id, seq, start_ns, dur_ns, name, kind, core_type,
        coalesce(device_id, TRY_CAST(pid AS INTEGER)) AS device_id,
        coalesce(stream_id, TRY_CAST(tid AS BIGINT)) AS stream_id, task_id, correlation_id, grid, block,
        registers_per_thread, shared_mem_bytes, external_id, function_id, core_id
    FROM trace_events
    WHERE kind IS NOT NULL AND kind <> 'npu_task' AND run_id IN (SELECT run_id FROM runs);
