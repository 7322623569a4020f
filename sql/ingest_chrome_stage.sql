-- Stage one batch of a Chrome trace-event JSON file as a table of the in-memory database tracedb_stage,
-- one row per complete ('X') or metadata ('M') event in file order (rowid: the parts are read in order and
-- DuckDB preserves insertion order). The table is named by the caller (two alternate: one is moved into
-- the store on a second cursor while the next is parsed).
-- Flow, instant and counter events are not kept: they are a third of a Kineto trace's events.
-- Parameters: $files VARCHAR[] (the parts: JSON arrays of events), $cols (the explicit schema: ph, cat,
--   name, pid/tid as VARCHAR, which takes numbers and strings alike, ts DOUBLE or VARCHAR, dur, args as a
--   STRUCT of the keys tracedb reads), $base_ns (Kineto's baseTimeNanoseconds, else 0).
-- Placeholders: `ts_ns`, the expression turning ts into integer ns, chosen by tracedb.ingest.chrome_json:
--   for numbers the whole µs and the fraction converted apart (exact for epoch µs, whose ts * 1000 a double
--   cannot hold, and for Kineto's relative us.fff), the exact
--   decimal path for Ascend's string ts; `arg[key]`, an args field as typed by the reader, or cast from
--   JSON text when the typed read failed. Each timestamp becomes integer ns before any subtraction.
-- kind: kernel | memcpy | memset for device activities by category (Kineto's, and the legacy capitalised
--   Kernel / Memcpy / Memset); NULL for host events, metadata and the rest (Ascend tasks: batch step).
-- Output: tracedb_stage.<table>(ph, cat lower-cased, kind, name, pid, tid, start_ns, dur_ns, and the args fields).
-- Run outside a transaction: a table replaced inside one is kept until it ends, so memory would grow
-- with the file.
CREATE OR REPLACE TABLE tracedb_stage.{ev} AS
SELECT ph, cat,
    CASE WHEN ph <> 'X' THEN NULL
         WHEN cat = 'kernel' THEN 'kernel'
         WHEN cat IN ('gpu_memcpy', 'memcpy') THEN 'memcpy'
         WHEN cat IN ('gpu_memset', 'memset') THEN 'memset' END AS kind,
    name, pid, tid, start_ns, dur_ns, correlation_id, external_id, device, stream, task_id, task_type,
    -- runtime swimlane: "Task:r2t0, FuncId:0, CoreId:2"
    TRY_CAST(regexp_extract(hint, 'FuncId:\s*(\d+)', 1) AS BIGINT) AS function_id,
    TRY_CAST(regexp_extract(hint, 'CoreId:\s*(\d+)', 1) AS INTEGER) AS core_id,
    grid, block, registers, shared_mem, arg_name, sort_index
FROM (
    SELECT ph, lower(cat) AS cat, name, pid, tid, $base_ns + {ts_ns} AS start_ns,
        greatest(CAST(round(coalesce(dur, 0) * 1000) AS BIGINT), 0) AS dur_ns,
        coalesce({arg[correlation]}, {arg[connection_id]}) AS correlation_id, {arg[External id]} AS external_id,
        {arg[device]} AS device, coalesce({arg[stream]}, {arg[Stream Id]}) AS stream,
        coalesce({arg[Task Id]}, {arg[taskId]}, {arg[extra_id]}) AS task_id, {arg[Task Type]} AS task_type,
        {arg[event-hint]} AS hint, {arg[grid]} AS grid, {arg[block]} AS block,
        {arg[registers per thread]} AS registers, {arg[shared memory]} AS shared_mem,
        {arg[name]} AS arg_name, {arg[sort_index]} AS sort_index
    FROM read_json($files, format = 'array', columns = $cols)
    WHERE ph IN ('X', 'M')
);
