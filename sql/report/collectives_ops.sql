-- The communication ops of the runs of a job, each with its collective, process group and place in the
-- group's order: what clock alignment (engine/jobs/align.py) and `report collectives` match across ranks.
-- A communication op is what every report counts as communication (breakdown_activity.sql): kind 'comm'
-- (Ascend HCCL ops) or a kernel of the profile's communication category (NCCL/RCCL, ...). A run with no
-- such op but the Ascend profiler's communication.json (a rank exported without kernels) takes its ops
-- from comm_ops instead (start and elapse of each op).
-- op: the collective, lower case without '_': c10d's "Collective name" when the kernel carries it, else the
--   word in the kernel name (ncclDevKernel_AllReduce_... -> allreduce, hcom_reduceScatter__097_4_1 ->
--   reducescatter), else the name.
-- grp: c10d's process group ("Process Group Name"); for an Ascend op the HCCL group id of comm_ops (the
--   text after '@' of the op's key, which run_groups' 'group_name_N' key gives through the macro
--   hccl_group_id), else the digits after '__' in its name; for a GPU kernel without c10d
--   metadata 'stream <id>': NCCL runs each communicator on its own stream, and ranks of one job create
--   their streams in the same order (the report says so in a note).
-- nbytes: the larger of c10d's In and Out msg nelems times the dtype's size (the message size
--   nccl-tests' formulas take: the whole buffer for allreduce, the gathered one for allgather, the scattered
--   one for reducescatter); NULL without metadata or for an unknown dtype.
-- ord: 0-based order of the op within its run and group, by start.
-- Inputs: kernels, trace_events (extra_args), runs, run_groups, comm_ops, comm_links, _cats (categories.sql).
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: TEMP _coll_ops, one row per communication op of the runs:
--   run_id INTEGER: the run
--   rank INTEGER: its rank (runs.rank)
--   kseq BIGINT: the kernel (kernels.seq); NULL for an op of comm_ops
--   name VARCHAR: the kernel (op) name
--   op VARCHAR: the collective
--   grp VARCHAR: the process group
--   grp_desc VARCHAR: its description (pg_desc, Ascend group_name) when known
--   grp_source VARCHAR: c10d | hccl | stream
--   start_ns BIGINT: start
--   end_ns BIGINT: end
--   nbytes BIGINT: message size in bytes
--   dtype VARCHAR: c10d's dtype
--   group_size BIGINT: ranks in the group (c10d Group size, else run_groups)
--   c10d_seq BIGINT: c10d's sequence number ("Seq") when the trace has it
--   ord BIGINT: 0-based order within the run and group
--   prof_elapse_ns BIGINT: the Ascend profiler's Elapse Time of the op on this rank (comm_ops, same run and op
--     name, the nearest start); NULL without communication.json
--   prof_wait_ns BIGINT: its Wait Time
--   prof_transit_ns BIGINT: its Transit Time
--   prof_sync_ns BIGINT: its Synchronization Time
--   prof_idle_ns BIGINT: its Idle Time
--   prof_bytes BIGINT: the bytes the Ascend profiler counts the op moving on this rank, as msprof-analyze counts
--     them: its Transit Size over the link types of communication.json (comm_links), SDMA (which msprof makes
--     the sum of HCCS, PCIE and SIO, and adds the copies of other intra-node link types to) plus RDMA; where a
--     file has no SDMA entry, HCCS + PCIE + SIO + RDMA. 0 for an op the file lists without any transfer (its
--     links all 0, which ingest leaves out); NULL without a matching communication.json op
CREATE OR REPLACE TEMP TABLE _coll_ops AS
WITH kops AS (
    SELECT k.run_id, k.seq AS kseq, k.name, k.start_ns, k.start_ns + k.dur_ns AS end_ns, k.stream_id,
        TRY_CAST(t.extra_args AS JSON) AS x
    FROM kernels k
    JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
    LEFT JOIN trace_events t ON t.run_id = k.run_id AND t.seq = k.seq AND t.extra_args IS NOT NULL
        AND t.kind IS NOT NULL AND t.kind <> 'npu_task'
    WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm')
      AND (k.kind = 'comm' OR c.category = 'communication')
),
has_kops AS (SELECT DISTINCT run_id FROM kops),
hccl AS (
    SELECT run_id, op_name, any_value(comm_group) AS comm_group FROM comm_ops
    WHERE run_id IN (SELECT unnest($run_ids)) AND op_name <> 'Total Op Info' GROUP BY ALL
),
fields AS (
    -- each op's c10d fields, its JSON parsed once (an `->>` a field parsed it again: ten times an op), and what
    -- its name says, once a name (a 1,024-rank job has 270 k ops of a few names)
    SELECT o.* EXCLUDE (x),
        json_extract_string(x, ['collective', 'pg_name', 'pg_desc', 'in_nelems', 'out_nelems', 'dtype', 'group_size',
                                'seq']) AS f
    FROM kops o
),
named AS (
    SELECT name,
        nullif(lower(regexp_extract(name, '(?i)(batchsendrecv|allreduce|allgather|reducescatter|reduce_scatter|'
               || 'alltoall|broadcast|sendrecv|barrier|send|recv|reduce|gather|scatter)', 1)), '') AS name_op,
        CASE WHEN regexp_matches(name, '^hcom_\w+?__\d+_') THEN regexp_extract(name, '__(\d+)_', 1) END AS name_group,
        regexp_matches(name, '^hcom_') AS hcom
    FROM (SELECT DISTINCT name FROM kops)
),
ops AS (
    SELECT o.run_id, o.kseq, o.name,
        coalesce(nullif(regexp_extract(lower(replace(o.f[1], '_', '')),
                 '(batchsendrecv|allreduce|allgather|reducescatter|alltoall|broadcast|sendrecv|barrier|send|recv|'
                 || 'reduce|gather|scatter)', 1), ''),
                 lower(replace(o.f[1], '_', '')), n.name_op, o.name) AS op0,
        CASE WHEN o.f[2] IS NOT NULL THEN o.f[2]
             WHEN h.comm_group IS NOT NULL THEN h.comm_group
             WHEN n.name_group IS NOT NULL THEN n.name_group
             ELSE 'stream ' || coalesce(o.stream_id::VARCHAR, '?') END AS grp,
        o.f[3] AS desc0,
        CASE WHEN o.f[2] IS NOT NULL THEN 'c10d' WHEN h.comm_group IS NOT NULL OR n.hcom THEN 'hccl'
             ELSE 'stream' END AS grp_source,
        o.start_ns, o.end_ns,
        greatest(TRY_CAST(o.f[4] AS BIGINT), TRY_CAST(o.f[5] AS BIGINT))
            * CASE lower(replace(o.f[6], '_', ''))
                WHEN 'float' THEN 4 WHEN 'float32' THEN 4 WHEN 'int' THEN 4 WHEN 'int32' THEN 4 WHEN 'uint32' THEN 4
                WHEN 'half' THEN 2 WHEN 'float16' THEN 2 WHEN 'bfloat16' THEN 2 WHEN 'short' THEN 2 WHEN 'int16' THEN 2
                WHEN 'double' THEN 8 WHEN 'float64' THEN 8 WHEN 'long' THEN 8 WHEN 'int64' THEN 8
                WHEN 'complexfloat' THEN 8 WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1
                WHEN 'int8' THEN 1 WHEN 'uint8' THEN 1 WHEN 'float8e4m3fn' THEN 1 WHEN 'float8e5m2' THEN 1 END AS nbytes,
        o.f[6] AS dtype, TRY_CAST(o.f[7] AS BIGINT) AS size0, TRY_CAST(o.f[8] AS BIGINT) AS c10d_seq
    FROM fields o LEFT JOIN named n ON n.name IS NOT DISTINCT FROM o.name
    LEFT JOIN hccl h ON h.run_id = o.run_id AND h.op_name = o.name
    UNION ALL
    SELECT c.run_id, NULL, c.op_name,
        coalesce(nullif(lower(regexp_extract(c.op_name, '(?i)(batchsendrecv|allreduce|allgather|reducescatter|'
                 || 'alltoall|broadcast|sendrecv|barrier|send|recv|reduce|gather|scatter)', 1)), ''), c.op_name),
        coalesce(c.comm_group, regexp_extract(c.op_name, '__(\d+)_', 1)), NULL, 'hccl',
        c.start_ns, c.start_ns + c.elapse_ns, NULL, NULL, NULL, NULL
    FROM comm_ops c
    WHERE c.run_id IN (SELECT unnest($run_ids)) AND c.run_id NOT IN (SELECT run_id FROM has_kops)
      AND c.op_name <> 'Total Op Info' AND c.start_ns IS NOT NULL AND c.elapse_ns IS NOT NULL
),
moved AS (
    -- msprof's communication parser makes SDMA the sum of HCCS, PCIE and SIO (plus copies on other intra-node
    -- links), so adding every link type would count each intra-node byte twice; msprof-analyze reads SDMA and
    -- RDMA only (msprof_analyze/prof_exports/communicaion_info_export.py)
    SELECT run_id, step, op_class, op_name, comm_group,
        greatest(coalesce(sum(size_bytes) FILTER (WHERE transport = 'SDMA'), 0),
                 coalesce(sum(size_bytes) FILTER (WHERE transport IN ('HCCS', 'PCIE', 'SIO')), 0))
          + coalesce(sum(size_bytes) FILTER (WHERE transport = 'RDMA'), 0) AS moved_bytes
    FROM comm_links
    WHERE run_id IN (SELECT unnest($run_ids))
    GROUP BY ALL
),
prof AS (
    SELECT o.run_id, o.name, o.start_ns, arg_min(c.elapse_ns, abs(c.start_ns - o.start_ns)) AS prof_elapse_ns,
        arg_min(c.wait_ns, abs(c.start_ns - o.start_ns)) AS prof_wait_ns,
        arg_min(c.transit_ns, abs(c.start_ns - o.start_ns)) AS prof_transit_ns,
        arg_min(c.sync_ns, abs(c.start_ns - o.start_ns)) AS prof_sync_ns,
        arg_min(c.idle_ns, abs(c.start_ns - o.start_ns)) AS prof_idle_ns,
        -- an op of the file without a link row moved nothing (ingest keeps no all-zero link)
        arg_min(coalesce(m.moved_bytes, 0), abs(c.start_ns - o.start_ns))::BIGINT AS prof_bytes
    FROM (SELECT DISTINCT run_id, name, start_ns FROM ops) o
    JOIN comm_ops c ON c.run_id = o.run_id AND c.op_name = o.name AND c.start_ns IS NOT NULL
    LEFT JOIN moved m ON m.run_id = c.run_id AND m.op_name = c.op_name AND m.op_class IS NOT DISTINCT FROM c.op_class
        AND m.step IS NOT DISTINCT FROM c.step AND m.comm_group IS NOT DISTINCT FROM c.comm_group
    GROUP BY ALL
)
SELECT o.run_id, r.rank, o.kseq, o.name, o.op0 AS op, o.grp,
    coalesce(o.desc0, g.group_desc) AS grp_desc, o.grp_source, o.start_ns, o.end_ns, o.nbytes, o.dtype,
    coalesce(o.size0, g.group_size) AS group_size, o.c10d_seq,
    row_number() OVER (PARTITION BY o.run_id, o.grp ORDER BY o.start_ns, o.kseq) - 1 AS ord,
    p.prof_elapse_ns, p.prof_wait_ns, p.prof_transit_ns, p.prof_sync_ns, p.prof_idle_ns, p.prof_bytes
FROM ops o
JOIN runs r USING (run_id)
LEFT JOIN (
    -- an Ascend group is keyed by its HCCL id in communication.json, by 'group_name_N' in the metadata
    SELECT *, CASE WHEN starts_with(group_name, 'group_name_') THEN hccl_group_id(group_name) END AS hccl_id
    FROM run_groups
) g ON g.run_id = o.run_id AND (g.group_name = o.grp OR g.hccl_id = o.grp)
LEFT JOIN prof p ON p.run_id = o.run_id AND p.name = o.name AND p.start_ns = o.start_ns;
