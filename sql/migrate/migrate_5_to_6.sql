-- Schema v5 -> v6: jobs of many ranks. A job is the runs that share the tag `job` (set by `tracedb ingest
-- DIR --name JOB`); each run's rank and world size are runs columns already. This adds what a cross-rank
-- report needs besides: the run's parallel groups, and the Ascend profiler's own per-op communication
-- figures (communication.json, communication_matrix.json), which a rank folder may hold without kernels.
-- run_groups: one row per run and process group it belongs to: Kineto's distributedInfo.pg_config entries
--   (pg_name, pg_desc, backend_config, pg_size, ranks), or the parallel_group_info of an Ascend
--   profiler_metadata.json (group key, group_name, group_rank, global_ranks).
-- comm_ops: communication.json, one row per step, op and the profiler's "Total Op Info" (op_name as
--   written): its Communication Time Info, times as integer ns (the file's ms and µs numbers read as exact
--   decimals, rounded to the ns).
-- comm_links: communication.json's Communication Bandwidth Info, one row per op and link type (RDMA,
--   HCCS, PCIE, SDMA, SIO) with a non-zero size or time.
-- comm_matrix: communication_matrix.json, one row per step, op group and src-dst link.
-- Inputs: a v5 store.
-- Parameters: none.
-- Output: TABLE run_groups, TABLE comm_ops, TABLE comm_links, TABLE comm_matrix: columns as declared below.
CREATE TABLE run_groups (
    run_id        INTEGER NOT NULL, -- the run
    group_name    VARCHAR NOT NULL, -- Kineto pg_name ('0', '1', ...); Ascend the group's key ('group_name_5')
    group_desc    VARCHAR,          -- Kineto pg_desc ('default_pg', 'undefined'); Ascend group_name ('dp_cp')
    backend       VARCHAR,          -- Kineto backend_config ('cuda:nccl'); NULL for Ascend
    group_size    INTEGER,          -- ranks in the group (pg_size, else the length of ranks)
    ranks         INTEGER[],        -- the group's global ranks, in the order written
    group_rank    INTEGER           -- the run's rank inside the group (Ascend group_rank; Kineto: its place
                                    -- in ranks); NULL when the run's rank is not among them
);
CREATE TABLE comm_ops (
    run_id        INTEGER NOT NULL, -- the run
    step          VARCHAR,          -- the file's step key ('step13')
    op_class      VARCHAR,          -- 'collective' or 'p2p' (the file's level)
    op_name       VARCHAR,          -- 'hcom_allReduce__170_1_1', or 'Total Op Info'
    comm_group    VARCHAR,          -- the text after '@' in the op's key (HCCL's group id); NULL when none
    start_ns      BIGINT,           -- Start Timestamp(us) in ns (NULL for Total Op Info)
    elapse_ns     BIGINT,           -- Elapse Time(ms) in ns
    transit_ns    BIGINT,           -- Transit Time(ms)
    wait_ns       BIGINT,           -- Wait Time(ms)
    sync_ns       BIGINT,           -- Synchronization Time(ms)
    idle_ns       BIGINT,           -- Idle Time(ms)
    wait_ratio    DOUBLE,           -- Wait Time Ratio
    sync_ratio    DOUBLE            -- Synchronization Time Ratio
);
CREATE TABLE comm_links (
    run_id        INTEGER NOT NULL, -- the run
    step          VARCHAR,          -- as comm_ops
    op_class      VARCHAR,          -- as comm_ops
    op_name       VARCHAR,          -- as comm_ops
    comm_group    VARCHAR,          -- as comm_ops
    transport     VARCHAR,          -- link type: RDMA, HCCS, PCIE, SDMA, SIO
    size_bytes    BIGINT,           -- Transit Size(MB) x 1e6, rounded
    time_ns       BIGINT,           -- Transit Time(ms) in ns
    bandwidth_gbps DOUBLE,          -- Bandwidth(GB/s) as written
    large_packet_ratio DOUBLE       -- Large Packet Ratio
);
CREATE TABLE comm_matrix (
    run_id        INTEGER NOT NULL, -- the run
    step          VARCHAR,          -- as comm_ops
    op_class      VARCHAR,          -- as comm_ops
    matrix_op     VARCHAR,          -- the key before '@': 'allreduce-top1', 'allgather-total', ...
    comm_group    VARCHAR,          -- the text after '@'
    src_rank      INTEGER,          -- the link's source rank, as written ('0-1': 0)
    dst_rank      INTEGER,          -- its destination rank ('0-1': 1)
    transport     VARCHAR,          -- Transport Type: LOCAL, HCCS, RDMA, ...
    size_bytes    BIGINT,           -- Transit Size(MB) x 1e6, rounded
    time_ns       BIGINT,           -- Transit Time(ms) in ns
    bandwidth_gbps DOUBLE,          -- Bandwidth(GB/s) as written
    op_name       VARCHAR           -- Op Name (NULL on the total rows)
);
