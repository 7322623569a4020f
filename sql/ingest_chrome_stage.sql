-- Stage the events of a Chrome trace-event JSON file as TEMP _ev, one row per event in file order
-- (rowid: the parts are read in order and DuckDB preserves insertion order).
-- Parameters: $files VARCHAR[] (the parts: JSON arrays of events), $cols (the explicit schema: ph, cat,
--   name, pid/tid as JSON text since producers write numbers and strings, ts DOUBLE or VARCHAR, dur,
--   args as a STRUCT of the keys tracedb reads), $base_ns (Kineto's baseTimeNanoseconds, else 0).
-- Placeholders: `ts_ns`, the expression turning ts into integer ns, chosen by tracedb.ingest.chrome_json:
--   round(ts * 1000) for Kineto's numbers (relative µs < 2^43 convert exactly, PERFORMANCE.md), the exact
--   decimal path for Ascend's string ts; `arg[key]`, an args field as typed by the reader, or cast from
--   JSON text when the typed read failed. Each timestamp becomes integer ns before any subtraction.
-- kind: kernel | memcpy | memset for device activities by category (Kineto's, and the legacy capitalised
--   Kernel / Memcpy / Memset); NULL for host events, metadata and the rest (Ascend tasks: finish step).
-- Output: _ev(ph, cat lower-cased, kind, name, pid, tid, start_ns, dur_ns, and the args fields).
CREATE OR REPLACE TEMP TABLE _ev AS
SELECT ph, lower(cat) AS cat,
    CASE WHEN ph <> 'X' THEN NULL
         WHEN lower(cat) = 'kernel' THEN 'kernel'
         WHEN lower(cat) IN ('gpu_memcpy', 'memcpy') THEN 'memcpy'
         WHEN lower(cat) IN ('gpu_memset', 'memset') THEN 'memset' END AS kind,
    name, trim(pid::VARCHAR, '"') AS pid, trim(tid::VARCHAR, '"') AS tid,
    $base_ns + {ts_ns} AS start_ns,
    greatest(CAST(round(coalesce(dur, 0) * 1000) AS BIGINT), 0) AS dur_ns,
    coalesce({arg[correlation]}, {arg[connection_id]}) AS correlation_id,
    {arg[External id]} AS external_id,
    {arg[device]} AS device, coalesce({arg[stream]}, {arg[Stream Id]}) AS stream,
    coalesce({arg[Task Id]}, {arg[taskId]}, {arg[extra_id]}) AS task_id, {arg[Task Type]} AS task_type,
    -- runtime swimlane: "Task:r2t0, FuncId:0, CoreId:2"
    TRY_CAST(regexp_extract({arg[event-hint]}, 'FuncId:\s*(\d+)', 1) AS BIGINT) AS function_id,
    TRY_CAST(regexp_extract({arg[event-hint]}, 'CoreId:\s*(\d+)', 1) AS INTEGER) AS core_id,
    {arg[grid]} AS grid, {arg[block]} AS block,
    {arg[registers per thread]} AS registers, {arg[shared memory]} AS shared_mem,
    {arg[name]} AS arg_name, {arg[sort_index]} AS sort_index
FROM read_json($files, format = 'array', columns = $cols);
