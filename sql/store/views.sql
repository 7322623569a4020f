-- The views of a store, each defined here only: created with a new store, and re-created after a
-- `tracedb migrate` (the migrations of sql/migrate/ change tables only), so a migrated store has exactly
-- a new store's views. A Parquet dataset opened read-only gets them too: its catalog is a new store whose
-- tables become views over the files (engine/store/dataset.py). The views are stored in the file and use
-- no macro or UDF, so the plain `duckdb` CLI reads them. They are created in dependency order (a view
-- after the views it reads), the order a dataset's manifest lists them in for other engines.
-- A store at the current schema version is never rewritten on open: changing a view here needs a new
-- schema version (a migration file, even one with no statement) so that `tracedb migrate` brings it to
-- older stores. Their columns, types and meanings: docs/schema.md, generated from a new store's catalog
-- by docs/gen_schema.py.
-- Inputs: the tables runs, kernels_raw_full, kernels_raw_ascend_csv, kernel_texts, kernel_work_rows,
--   kernel_work_tuples, trace_events, kernel_segments, kernel_names.
-- Parameters: none.
-- Output: VIEW kernels_raw, every device activity row of kernels_raw_full and kernels_raw_ascend_csv as
--   ingested, with all of kernels_raw_full's columns (NULL where a row's table has no such column).
-- Output: VIEW kernel_work, one row per counted kernel with a known work formula (run_id, seq, flops, bytes,
--   flops_source, dtype): the rows of kernel_work_rows, and each counted kernel of a tuple of
--   kernel_work_tuples (same run, text tuple, op type and core type) with that tuple's work.
-- Output: VIEW kernels, the counted device activities reports read: kernels_raw without the duplicates
--   (dup NULL) with its texts from kernel_texts, then the device activities of trace_events (kind not
--   NULL nor 'npu_task') of finished runs, device and stream falling back to the pid and tid.
-- Output: VIEW host_events, the host-side complete events of trace_events (kind NULL) of finished runs.
-- Output: VIEW kernel_launches, one row per device activity of the kernels view whose launch the trace
--   records: the host event that launched it. Kineto, nsys and rocprof link them by a correlation id: the
--   runtime or driver call (Kineto's categories cuda_runtime, cuda_driver, privateuse1_runtime and _driver,
--   `runtime`) carrying the activity's id; no API name list, so a graph launch is the launch of every kernel
--   of its graph. Ascend's trace_view.json links them by an async_npu flow: 's' at the launching op's start
--   on its thread (the innermost, shortest op that starts there; none when no op starts there: the flow's
--   start is the launch's time and thread), 'f' at the task's start on its stream; the
--   task is the activity carrying the flow's id (a kernel_details.csv row takes it from its trace_view task
--   at ingest), else the activity that starts where the flow ends. One launch per activity: the first by
--   start of those its own id names, then of those a flow's place names.
-- Output: VIEW kernel_metrics, one row per kernel and numeric source column without a column of its own.
-- Output: VIEW kernel_extras, one row per kernel and text source column without a column of its own.
-- Output: VIEW run_kernels, the kernels view with each run's name and tags.
-- Output: VIEW run_summary, one row per run (runs without kernels too): kernels, device time and span.
-- Output: VIEW kernel_stats, one row per run and kernel name: count and duration statistics.
-- Output: VIEW kernel_layers, one row per kernel of a stored segmentation, with its run and kernel facts
--   and its work (kernel_work: flops, bytes, flops_source; NULL where tracedb has no formula or shapes).
-- A view is re-created in place (CREATE OR REPLACE) so that an older store's view of the same name, or a
-- view over columns a migration changed, gives way to today's.
CREATE OR REPLACE VIEW kernels_raw AS
    SELECT * FROM kernels_raw_full
    UNION ALL BY NAME
    SELECT * FROM kernels_raw_ascend_csv;
CREATE OR REPLACE VIEW kernel_work AS
    SELECT run_id, seq, flops, bytes, flops_source, dtype FROM kernel_work_rows
    UNION ALL
    SELECT k.run_id, k.seq, w.flops, w.bytes, w.flops_source, w.dtype
    FROM kernels_raw k
    JOIN kernel_work_tuples w ON w.run_id = k.run_id AND w.text_id = k.text_id
        AND w.op_type IS NOT DISTINCT FROM k.op_type AND w.core_type IS NOT DISTINCT FROM k.core_type
    WHERE k.dup IS NULL AND k.kind = 'kernel';
CREATE OR REPLACE VIEW kernels AS
    SELECT k.run_id, k.seq, k.start_ns, k.dur_ns, k.name, k.op_type, k.kind, k.core_type, k.device_id, k.stream_id,
        k.task_id, k.step_id, k.model_id, k.context_id, k.correlation_id, k.block_dim, k.mix_block_dim, k.wait_ns,
        t.op_state, t.input_shapes, t.input_dtypes, t.input_formats, t.output_shapes, t.output_dtypes,
        t.output_formats, k.grid, k.block, k.registers_per_thread, k.shared_mem_bytes, k.external_id,
        k.function_id, k.core_id
    FROM kernels_raw k LEFT JOIN kernel_texts t ON t.run_id = k.run_id AND t.text_id = k.text_id
    WHERE k.dup IS NULL
    UNION ALL BY NAME
    SELECT run_id, seq, start_ns, dur_ns, name, kind, core_type,
        coalesce(device_id, TRY_CAST(pid AS INTEGER)) AS device_id,
        coalesce(stream_id, TRY_CAST(tid AS BIGINT)) AS stream_id, task_id, correlation_id, grid, block,
        registers_per_thread, shared_mem_bytes, external_id, function_id, core_id
    FROM trace_events
    WHERE kind IS NOT NULL AND kind <> 'npu_task' AND run_id IN (SELECT run_id FROM runs);
CREATE OR REPLACE VIEW host_events AS
    SELECT run_id, seq, start_ns, dur_ns, name, cat, pid, tid, correlation_id, external_id, task_id,
        function_id, core_id
    FROM trace_events
    WHERE ph = 'X' AND kind IS NULL AND run_id IN (SELECT run_id FROM runs);
CREATE OR REPLACE VIEW kernel_launches AS
    WITH flow_ops AS (
        SELECT s.run_id, s.correlation_id AS flow_id, min(s.start_ns) AS t, any_value(s.pid) AS pid,
            any_value(s.tid) AS tid,
            arg_min(h.seq, CASE WHEN h.seq IS NOT NULL THEN (h.dur_ns, h.seq) END) AS call_seq
        FROM trace_events s
        LEFT JOIN host_events h ON h.run_id = s.run_id AND h.pid IS NOT DISTINCT FROM s.pid
                               AND h.tid IS NOT DISTINCT FROM s.tid AND h.start_ns = s.start_ns
        WHERE s.ph = 's' AND s.cat = 'async_npu'
        GROUP BY s.run_id, s.correlation_id
    ), linked AS (
        SELECT k.run_id, k.seq, h.seq AS call_seq, h.start_ns AS t, h.pid, h.tid, 'correlation' AS via, 0 AS rank_by
        FROM kernels k JOIN host_events h ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id
        WHERE k.correlation_id IS NOT NULL
          AND h.cat IN ('cuda_runtime', 'cuda_driver', 'privateuse1_runtime', 'privateuse1_driver', 'runtime')
        UNION ALL
        SELECT k.run_id, k.seq, o.call_seq, o.t, o.pid, o.tid, 'flow', 0
        FROM kernels k JOIN flow_ops o ON o.run_id = k.run_id AND o.flow_id = k.correlation_id
        UNION ALL
        SELECT t.run_id, t.seq, o.call_seq, o.t, o.pid, o.tid, 'flow', 1
        FROM trace_events f
        JOIN flow_ops o ON o.run_id = f.run_id AND o.flow_id = f.correlation_id
        JOIN trace_events t ON t.run_id = f.run_id AND t.pid IS NOT DISTINCT FROM f.pid
                           AND t.tid IS NOT DISTINCT FROM f.tid AND t.start_ns = f.start_ns AND t.ph = 'X'
                           AND t.kind IS NOT NULL AND t.kind <> 'npu_task'
        WHERE f.ph = 'f' AND f.cat = 'async_npu'
    )
    SELECT l.run_id, l.seq, l.call_seq, h.name AS api, l.t AS call_ns, h.dur_ns AS call_dur_ns, l.pid, l.tid, l.via
    FROM linked l LEFT JOIN host_events h ON h.run_id = l.run_id AND h.seq = l.call_seq
    QUALIFY row_number() OVER (PARTITION BY l.run_id, l.seq ORDER BY l.rank_by, l.t, l.call_seq) = 1;
CREATE OR REPLACE VIEW kernel_metrics AS
    SELECT k.run_id, k.seq, unnest(r.metric_columns) AS metric, unnest(k.metrics) AS value
    FROM kernels_raw k JOIN runs r USING (run_id);
CREATE OR REPLACE VIEW kernel_extras AS
    SELECT run_id, seq, column_name, nullif(value, '') AS value FROM (
        SELECT k.run_id, k.seq, unnest(r.extra_columns) AS column_name,
               unnest(string_split(coalesce(t.extra_text, ''), chr(31))) AS value
        FROM kernels_raw k JOIN runs r USING (run_id)
        LEFT JOIN kernel_texts t ON t.run_id = k.run_id AND t.text_id = k.text_id
        WHERE len(r.extra_columns) > 0);
CREATE OR REPLACE VIEW run_kernels AS
    SELECT k.run_id, r.name AS run, r.tags, k.* EXCLUDE (run_id)
    FROM kernels k JOIN runs r USING (run_id);
CREATE OR REPLACE VIEW run_summary AS
    SELECT r.run_id, r.name AS run, r.tags, r.format, r.rank, r.device_name, r.source_bytes,
        count(k.run_id) AS kernels, coalesce(sum(k.dur_ns), 0) * 0.001 AS device_us,
        (max(k.start_ns + k.dur_ns) - min(k.start_ns)) * 0.001 AS span_us,
        min(k.start_ns) AS first_start_ns, max(k.start_ns + k.dur_ns) AS last_end_ns
    FROM runs r LEFT JOIN kernels k USING (run_id)
    GROUP BY r.run_id, r.name, r.tags, r.format, r.rank, r.device_name, r.source_bytes;
-- avg_us: the mean rounded to the ns, in exact DECIMAL µs like the other times
CREATE OR REPLACE VIEW kernel_stats AS
    SELECT s.run_id, r.name AS run, r.tags, s.name, n.short_name, s.op_type, s.count,
        s.sum_ns * 0.001 AS sum_us, round(s.avg_ns)::BIGINT * 0.001 AS avg_us, s.min_ns * 0.001 AS min_us,
        s.max_ns * 0.001 AS max_us
    FROM (SELECT run_id, name, min(op_type) AS op_type, count(*) AS count, sum(dur_ns) AS sum_ns,
                 avg(dur_ns) AS avg_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns
          FROM kernels GROUP BY run_id, name) s
    JOIN runs r USING (run_id)
    LEFT JOIN kernel_names n ON n.name = s.name;
CREATE OR REPLACE VIEW kernel_layers AS
    SELECT r.name AS run, s.pass, s.layer, s.block, s.category, s.module, k.name, n.short_name, k.op_type, k.kind,
        k.start_ns, k.dur_ns, k.seq, r.run_id, r.tags, r.rank, r.device_name, r.format,
        s.step, s.microbatch, s.phase, s.unit, s.grad, s.stage, s.layer_kind, s.pp_stage, s.model_layer,
        w.flops, w.bytes, w.flops_source
    FROM kernel_segments s
    JOIN kernels k USING (run_id, seq)
    JOIN runs r USING (run_id)
    LEFT JOIN kernel_work w USING (run_id, seq)
    LEFT JOIN kernel_names n ON n.name = k.name;
