-- Move a staged Chrome trace (_ev) into the store as run $run_id.
-- Inputs: _ev. Parameters: $run_id.
-- tracks: process_name / thread_name / *_sort_index metadata events, one row per (pid, tid) seen in
--   them, each with its process's name.
-- kernels_raw: complete ('X') device activities: cat kernel / gpu_memcpy / gpu_memset (and the legacy
--   Kernel / Memcpy / Memset, matched lower-cased), and Ascend trace_view tasks (no cat, in the process
--   named 'Ascend Hardware'). kind = kernel | memcpy | memset; device from args.device (Kineto) or the
--   pid; stream from args.stream / args."Stream Id" or the tid. seq = the event's position in the file.
-- host_events: every other complete event (cpu_op, user_annotation, python_function, cuda_runtime, ...).
-- Unquoted pid/tid JSON numbers keep their digits; string ones lose their quotes.
CREATE OR REPLACE TEMP TABLE _names AS
SELECT trim(pid, '"') AS pid, trim(tid, '"') AS tid,
    max(CASE WHEN name = 'process_name' THEN args.name END)::VARCHAR AS process_name,
    max(CASE WHEN name = 'thread_name' THEN args.name END)::VARCHAR AS thread_name,
    max(CASE WHEN name IN ('process_sort_index', 'thread_sort_index') THEN TRY_CAST(args.sort_index AS INTEGER) END)
        AS sort_index
FROM _ev WHERE ph = 'M'
GROUP BY ALL;
INSERT INTO tracks BY NAME
SELECT $run_id AS run_id, pid, tid, max(process_name) OVER (PARTITION BY pid) AS process_name, thread_name, sort_index
FROM _names;
CREATE OR REPLACE TEMP TABLE _dev AS
-- rowids of rows created in an open transaction start at 2^55: seq counts from the first event
SELECT e.rowid - (SELECT min(rowid) FROM _ev) AS seq, e.*,
    CASE WHEN e.cat IN ('kernel') THEN 'kernel'
         WHEN e.cat IN ('gpu_memcpy', 'memcpy') THEN 'memcpy'
         WHEN e.cat IN ('gpu_memset', 'memset') THEN 'memset'
         WHEN e.cat IS NULL AND p.process_name = 'Ascend Hardware' THEN 'kernel' END AS kind
FROM _ev e
LEFT JOIN (SELECT DISTINCT pid, process_name FROM tracks WHERE run_id = $run_id AND process_name IS NOT NULL) p
    ON p.pid = trim(e.pid, '"')
WHERE e.ph = 'X';
INSERT INTO kernels_raw BY NAME
SELECT $run_id AS run_id, seq, start_ns, dur_ns, name, kind,
    coalesce(TRY_CAST(args.device AS INTEGER), TRY_CAST(trim(pid, '"') AS INTEGER)) AS device_id,
    coalesce(TRY_CAST(args.stream AS BIGINT), TRY_CAST(args."Stream Id" AS BIGINT), TRY_CAST(trim(tid, '"') AS BIGINT)) AS stream_id,
    TRY_CAST(args."Task Id" AS BIGINT) AS task_id,
    args."Task Type"::VARCHAR AS core_type,
    coalesce(TRY_CAST(args.correlation AS BIGINT), TRY_CAST(args.connection_id AS BIGINT)) AS correlation_id,
    TRY_CAST(args."External id" AS BIGINT) AS external_id,
    TRY_CAST(args.grid AS INTEGER[]) AS grid,
    TRY_CAST(args.block AS INTEGER[]) AS block,
    TRY_CAST(args."registers per thread" AS INTEGER) AS registers_per_thread,
    TRY_CAST(args."shared memory" AS BIGINT) AS shared_mem_bytes
FROM _dev WHERE kind IS NOT NULL;
INSERT INTO host_events BY NAME
SELECT $run_id AS run_id, seq, start_ns, dur_ns, name, cat, trim(pid, '"') AS pid, trim(tid, '"') AS tid,
    TRY_CAST(args.correlation AS BIGINT) AS correlation_id,
    TRY_CAST(args."External id" AS BIGINT) AS external_id
FROM _dev WHERE kind IS NULL;
DROP TABLE _dev;
DROP TABLE _names;
DROP TABLE _ev;
