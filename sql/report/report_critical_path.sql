-- Report `critical-path` (--by segment): the path's segments in time order: each run's, or with --job the one
-- path across the runs (each segment on its node's run).
-- Inputs: _cp_path (critical_path_segments.sql), runs, kernel_names.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per segment, in time order:
--   run VARCHAR: the run's name (with --job, the run of the segment's node)
--   rank INTEGER: its rank; NULL when unknown
--   step BIGINT: the window's step; NULL: the whole trace
--   seq BIGINT: the segment's position on the path, from 0 at the window's start
--   start_us DECIMAL(23,3): start, from the window's start
--   end_us DECIMAL(23,3): end, from the window's start
--   dur_us DECIMAL(23,3): end - start
--   segment VARCHAR: the node's kind (kernel, comm, memcpy, memset, launch, sync) for its own stretch; gap
--     for the time before it (and a collective's comm_wait)
--   category VARCHAR: device_compute, device_comm, device_memcpy, host_op, sync_wait (work on the path);
--     launch_latency, device_gap, host_gap, comm_wait (waiting on the path; comm_wait: a job's rank on its
--     own, its collective before the last other member arrived)
--   kernel VARCHAR: the device activity's short name (its own stretch, or the gap before it)
--   name VARCHAR: its full name (terminal and Markdown tables show kernel instead, told apart)
--   api VARCHAR: the host call (launch or synchronising call)
--   pass BIGINT: the pass of the kernel (a host call: of the first kernel it launched); NULL: not segmented
--   layer BIGINT: its layer; NULL: the prologue or epilogue (unit), or no pass
--   unit VARCHAR: prologue | layer | epilogue; NULL: no pass
--   stage VARCHAR: the kernel's stage in its layer (attention, ffn; router, dispatch, experts, combine, shared);
--     NULL outside a layer
--   module VARCHAR: the nn.Module (else annotation, op) that launched it, as report modules names it
--   lane VARCHAR: device:DEVICE:STREAM or host:PID:TID
SELECT r.name AS run, r.rank, p.step, p.pos AS seq,
    CAST((p.start_ns - p.window_start_ns) / 1000 AS DECIMAL(23,3)) AS start_us,
    CAST((p.end_ns - p.window_start_ns) / 1000 AS DECIMAL(23,3)) AS end_us,
    CAST((p.end_ns - p.start_ns) / 1000 AS DECIMAL(23,3)) AS dur_us,
    p.segment, p.category, coalesce(kn.short_name, p.kernel) AS kernel, p.kernel AS name, p.api, p.pass, p.layer,
    p.unit, p.stage, p.module, p.lane
FROM _cp_path p JOIN runs r USING (run_id) LEFT JOIN kernel_names kn ON kn.name = p.kernel
WHERE p.run_id IN (SELECT unnest($run_ids))
ORDER BY p.path, p.pos;
