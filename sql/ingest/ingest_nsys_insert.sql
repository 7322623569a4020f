-- The rows of one run of an Nsight Systems export (as copied by ingest/nsys.py), with the export's integer ns.
-- Device rows, into kernels_raw_full, ordered by start (then end, then kernel, memcpy, memset, then table order):
--   a kernel is named by its demangledName (the name `nsys stats --report cuda_gpu_kern_sum` prints; an
--   export without that column: shortName, else mangledName); a copy '[CUDA memcpy <kind>]' with the
--   ENUM_CUDA_MEMCPY_OPER label (Host-to-Device, ...); a memset '[CUDA memset]'. NCCL kernels stay kind
--   'kernel': the GPU profiles categorise them as communication by name, as for Kineto traces. task_id
--   holds the CUDA graph node id (graphNodeId) of an activity launched from a graph; shared_mem_bytes is
--   static + dynamic shared memory.
-- Host rows, into trace_events, of the processes with device rows in the run (all of them when the export
--   has no globalPid): every CUDA runtime / driver call as a complete event of category cuda_runtime /
--   cuda_driver carrying its correlation id (the link to its kernels; a cudaGraphLaunch carries the id of
--   every kernel of the graph), its name without the ABI suffix (cudaLaunchKernel_v7000 -> cudaLaunchKernel,
--   as nsys stats shows it); every NVTX push/pop and start/end range as a user_annotation on the thread that
--   opened it, named by its text (or textId through StringIds), its domain in extra_args (JSON, key domain);
--   a range never closed ends at the last time of the capture, one ending before it starts is left out.
--   pid and tid are the process and thread ids of the serialized globalTid / globalPid ((id >> 24) &
--   0xFFFFFF, id & 0xFFFFFF).
-- Synchronisation rows (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), into trace_events as Kineto writes them: a stream's
--   wait for an event as cat cuda_sync 'Stream Wait Event' on the waiting stream, a stream's synchronisation as
--   'Stream Sync' on that stream (pid the device, tid the stream), each carrying its API call's correlation id
--   and at that call's time. The event waited for is named by an id; where the export has the event records
--   (CUPTI_ACTIVITY_KIND_CUDA_EVENT), the record is the one of the same eventSyncId where both carry one, else
--   the last record of the same process and event id whose call came before the synchronising call (CUPTI
--   numbers a process's calls in order; PyTorch reuses its events), and extra_args names it as Kineto's
--   cuda_sync events do: a JSON object of keys wait_stream (the recorded stream) and record_corr (the
--   cudaEventRecord call's correlation id). With a record, a host's wait for an event (cudaEventSynchronize)
--   is kept as 'Event Sync' (no stream); without one, report critical-path finds a stream wait's work by the
--   launch order (critical_path_nodes.sql) and an event synchronisation is not kept (the call then waits as a
--   device-wide synchronisation would). Context synchronisations are not kept.
-- correlation_id is the export's correlationId when the run holds one process; with several (CUPTI numbers
--   each process's calls on its own), pid * 2^32 + correlationId on both sides, so no kernel is linked to a
--   call of another process (not when some device rows lack globalPid: then every process's host events are
--   kept, with the export's ids).
-- Inputs: TEMP _nsys_strings, _nsys_activity, _nsys_api, _nsys_nvtx, _nsys_sync, _nsys_events (dropped at the
--   end).
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $range_types BIGINT[]: NVTX_EVENTS.eventType of push/pop and start/end ranges (ENUM_NSYS_EVENT_TYPE)
--   $domain_type BIGINT: NVTX_EVENTS.eventType of a domain's creation (its text names the domain)
--   $copy_ids BIGINT[]: ENUM_CUDA_MEMCPY_OPER ids, in the order of $copy_labels
--   $copy_labels VARCHAR[]: their labels
--   $wait_type BIGINT: the syncType of a stream's wait for an event (ENUM_CUPTI_SYNC_TYPE)
--   $stream_sync_type BIGINT: the syncType of a stream's synchronisation
--   $event_sync_type BIGINT: the syncType of a host's synchronisation on an event
-- Output: kernels_raw_full rows of the run (seq and dup left to ingest_finish), trace_events rows (host events
--   and synchronisations).
-- TEMP _nsys_procs is scratch, dropped at the end.
CREATE OR REPLACE TEMP TABLE _nsys_procs AS
WITH p AS (SELECT DISTINCT (global_pid >> 24) & 16777215 AS pid FROM _nsys_activity)
SELECT pid, (SELECT count(pid) > 1 AND count(*) = count(pid) FROM p) AS several, pid IS NULL AS every FROM p;
INSERT INTO kernels_raw_full (run_id, seq, start_ns, dur_ns, name, kind, device_id, stream_id, context_id, correlation_id,
                         task_id, grid, block, registers_per_thread, shared_mem_bytes)
WITH copy_kinds AS (
    SELECT unnest($copy_ids::BIGINT[]) AS id, unnest($copy_labels::VARCHAR[]) AS label
)
SELECT $run_id, 0, a.start_ns, a.end_ns - a.start_ns,
    CASE a.kind
        WHEN 'kernel' THEN coalesce(n.value, format('kernel {}', a.name_id))
        WHEN 'memcpy' THEN format('[CUDA memcpy {}]', coalesce(c.label, format('kind {}', a.copy_kind)))
        ELSE '[CUDA memset]' END,
    a.kind, a.device_id, a.stream_id, a.context_id,
    CASE WHEN (SELECT bool_or(several) FROM _nsys_procs)
         THEN ((a.global_pid >> 24) & 16777215) * 4294967296 + a.correlation_id ELSE a.correlation_id END,
    a.graph_node_id,
    CASE WHEN a.grid_x IS NOT NULL THEN [a.grid_x, a.grid_y, a.grid_z] END,
    CASE WHEN a.block_x IS NOT NULL THEN [a.block_x, a.block_y, a.block_z] END,
    a.registers, CASE WHEN a.kind = 'kernel' THEN coalesce(a.static_smem, 0) + coalesce(a.dynamic_smem, 0) END
FROM _nsys_activity a
LEFT JOIN _nsys_strings n ON n.id = a.name_id
LEFT JOIN copy_kinds c ON c.id = a.copy_kind AND a.kind = 'memcpy'
ORDER BY a.start_ns, a.end_ns, CASE a.kind WHEN 'kernel' THEN 0 WHEN 'memcpy' THEN 1 ELSE 2 END, a.ord;
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id, extra_args)
WITH capture_end AS (
    SELECT greatest((SELECT max(end_ns) FROM _nsys_activity), (SELECT max(end_ns) FROM _nsys_api),
                    (SELECT max(greatest(start_ns, end_ns)) FROM _nsys_nvtx)) AS t
), domains AS (
    -- a process numbers its own domains
    SELECT (v.global_tid >> 24) & 16777215 AS pid, v.domain_id, arg_min(coalesce(v.text, s.value), v.ord) AS domain
    FROM _nsys_nvtx v LEFT JOIN _nsys_strings s ON s.id = v.text_id
    WHERE v.event_type = $domain_type AND v.domain_id IS NOT NULL
    GROUP BY ALL
), host AS (
    SELECT 0 AS part, a.ord, a.cat, regexp_replace(s.value, '_v\d+$', '') AS name, a.global_tid, a.start_ns,
           a.end_ns - a.start_ns AS dur_ns, a.correlation_id, NULL AS extra_args
    FROM _nsys_api a LEFT JOIN _nsys_strings s ON s.id = a.name_id
    UNION ALL
    SELECT 1, v.ord, 'user_annotation', coalesce(v.text, s.value, '(unnamed NVTX range)'), v.global_tid, v.start_ns,
           coalesce(v.end_ns, (SELECT t FROM capture_end)) - v.start_ns, NULL,
           CASE WHEN d.domain IS NOT NULL THEN json_object('domain', d.domain)::VARCHAR END
    FROM _nsys_nvtx v
    LEFT JOIN _nsys_strings s ON s.id = v.text_id
    LEFT JOIN domains d ON d.domain_id = v.domain_id AND d.pid = (v.global_tid >> 24) & 16777215
    WHERE v.event_type IN (SELECT unnest($range_types::BIGINT[]))
)
SELECT $run_id, row_number() OVER (ORDER BY h.start_ns, h.part, h.ord), 'X', NULL, h.cat, h.name,
       ((h.global_tid >> 24) & 16777215)::VARCHAR, (h.global_tid & 16777215)::VARCHAR, h.start_ns, h.dur_ns,
       CASE WHEN (SELECT bool_or(several) FROM _nsys_procs)
            THEN ((h.global_tid >> 24) & 16777215) * 4294967296 + h.correlation_id ELSE h.correlation_id END,
       h.extra_args
FROM host h
WHERE h.dur_ns >= 0
  AND ((SELECT bool_or(every) FROM _nsys_procs) OR (h.global_tid >> 24) & 16777215 IN (SELECT pid FROM _nsys_procs))
ORDER BY h.start_ns, h.part, h.ord;
INSERT INTO trace_events (run_id, seq, ph, kind, cat, name, pid, tid, start_ns, dur_ns, correlation_id, device_id,
                          stream_id, extra_args)
WITH records AS (
    SELECT r.*, (r.global_pid >> 24) & 16777215 AS pid FROM _nsys_events r WHERE r.correlation_id IS NOT NULL
), syncs AS (
    SELECT y.*, (y.global_pid >> 24) & 16777215 AS pid FROM _nsys_sync y
    WHERE y.correlation_id IS NOT NULL AND y.sync_type IN ($wait_type, $stream_sync_type, $event_sync_type)
), by_sync_id AS (
    SELECT y.ord, arg_max(r.stream_id, r.correlation_id) AS rec_stream, max(r.correlation_id) AS rec_corr,
           arg_max(r.device_id, r.correlation_id) AS rec_device
    FROM syncs y JOIN records r ON r.event_sync_id = y.event_sync_id AND coalesce(r.pid, -1) = coalesce(y.pid, -1)
    WHERE y.sync_type <> $stream_sync_type
    GROUP BY y.ord
), by_order AS (
    -- the event's last record before the synchronising call
    SELECT y.ord, r.stream_id AS rec_stream, r.correlation_id AS rec_corr, r.device_id AS rec_device
    FROM (SELECT * FROM syncs WHERE sync_type <> $stream_sync_type AND ord NOT IN (SELECT ord FROM by_sync_id)) y
    ASOF JOIN records r
      ON coalesce(r.pid, -1) = coalesce(y.pid, -1) AND r.event_id = y.event_id
     AND r.correlation_id < y.correlation_id
), recorded AS (
    SELECT * FROM by_sync_id UNION ALL SELECT * FROM by_order
), several AS (
    SELECT bool_or(several) AS shift FROM _nsys_procs
)
SELECT $run_id, coalesce((SELECT max(seq) FROM trace_events WHERE run_id = $run_id), 0)
           + row_number() OVER (ORDER BY y.start_ns, y.ord),
       'X', NULL, 'cuda_sync',
       CASE y.sync_type WHEN $wait_type THEN 'Stream Wait Event' WHEN $event_sync_type THEN 'Event Sync'
                        ELSE 'Stream Sync' END,
       -- on the device and its stream, as Kineto writes its cuda_sync events (an event sync: no stream)
       coalesce(y.device_id, r.rec_device)::VARCHAR,
       CASE WHEN y.sync_type <> $event_sync_type THEN y.stream_id::VARCHAR END,
       y.start_ns, greatest(y.end_ns - y.start_ns, 0),
       CASE WHEN s.shift THEN y.pid * 4294967296 + y.correlation_id ELSE y.correlation_id END,
       coalesce(y.device_id, r.rec_device),
       CASE WHEN y.sync_type <> $event_sync_type THEN y.stream_id END,
       CASE WHEN r.rec_corr IS NOT NULL
            THEN json_object('wait_stream', r.rec_stream,
                             'record_corr', CASE WHEN s.shift THEN y.pid * 4294967296 + r.rec_corr ELSE r.rec_corr END
                            )::VARCHAR END
FROM syncs y CROSS JOIN several s
LEFT JOIN recorded r ON r.ord = y.ord
WHERE CASE WHEN y.sync_type = $event_sync_type THEN r.rec_corr IS NOT NULL
           ELSE y.stream_id IS NOT NULL AND y.stream_id <> 4294967295 END
ORDER BY y.start_ns, y.ord;
DROP TABLE _nsys_sync;
DROP TABLE _nsys_events;
DROP TABLE _nsys_strings;
DROP TABLE _nsys_activity;
DROP TABLE _nsys_api;
DROP TABLE _nsys_nvtx;
DROP TABLE _nsys_procs;
