-- Session macros over the store's views (TEMP, like macros.sql's): the launch of a kernel and the host frames
-- around it, the one place a query joins a kernel to the host call that launched it, and a launch to the
-- frames open at it. Created once the store's views exist (DuckDB checks that a macro's tables exist when it
-- is created), on every open of a store or dataset.
-- A launch is a launching call (launch_call in macros.sql: a runtime or driver call) that carries the
-- kernel's correlation id; the first by start when two do (cudaLaunchKernel and the cuLaunchKernel inside it).
-- The stored view kernel_launches holds the same join for users of the plain DuckDB CLI (a stored view uses
-- no macro) and adds the launches Ascend's trace_view.json records with flows; tests/test_launch_macros.py
-- holds the two to the same rows.
-- Two forms of one definition, because DuckDB plans them differently: launches_of for the kernels a query
-- names (a table of (run_id, correlation_id)), first_launches for all the kernels of runs. launches_of filters
-- the launching calls to the keys it is given before it picks the first: 0.03 s for the 1,676 anchors of a
-- 673 k-kernel, 1 GB Kineto trace, 0.53 s for all 1.73 M kernels of a 1,024-rank job, where a correlated
-- scalar subquery (DuckDB grouped every launching call of the store before the join) took 0.25 s and 2.2 s.
-- Inputs: the views kernels and host_events.
-- Parameters: none.
-- Output: TEMP MACROs launches_of, first_launches, enclosing.

-- launches_of(keys VARCHAR) -> TABLE(run_id INTEGER, correlation_id BIGINT, call_ns BIGINT, call_seq BIGINT,
--   api VARCHAR, pid VARCHAR, tid VARCHAR): one row per (run_id, correlation_id) of the table or CTE named
--   `keys` that a launching call carries: that call's start, its host_events seq, its name, its process and
--   thread. A kernel with no such call (or no correlation id) has no row: callers LEFT JOIN on the two columns.
CREATE OR REPLACE TEMP MACRO launches_of(keys) AS TABLE
    SELECT h.run_id, h.correlation_id, h.start_ns AS call_ns, h.seq AS call_seq, h.name AS api, h.pid, h.tid
    FROM host_events h SEMI JOIN query_table(keys) k ON k.run_id = h.run_id AND k.correlation_id = h.correlation_id
    WHERE launch_call(h.cat)
    QUALIFY row_number() OVER (PARTITION BY h.run_id, h.correlation_id ORDER BY h.start_ns, h.seq) = 1;
-- first_launches(run_ids INTEGER[]) -> TABLE(run_id INTEGER, seq BIGINT, call_ns BIGINT, call_seq BIGINT,
--   api VARCHAR, pid VARCHAR, tid VARCHAR): one row per kernel of the runs that has a launch: launches_of's
--   fields for it.
CREATE OR REPLACE TEMP MACRO first_launches(run_ids) AS TABLE
    SELECT k.run_id, k.seq, h.start_ns AS call_ns, h.seq AS call_seq, h.name AS api, h.pid, h.tid
    FROM kernels k JOIN host_events h ON h.run_id = k.run_id AND h.correlation_id = k.correlation_id
    WHERE k.run_id IN (SELECT unnest(run_ids)) AND k.correlation_id IS NOT NULL AND launch_call(h.cat)
    QUALIFY row_number() OVER (PARTITION BY k.run_id, k.seq ORDER BY h.start_ns, h.seq) = 1;
-- enclosing(launches VARCHAR, frames VARCHAR) -> TABLE: every host frame around each launch, the join four
--   rules make (a kernel's phase annotation, its layer range, its autograd node, its module and op frames):
--   the tables named `launches` (run_id INTEGER, seq BIGINT: the kernel; host_run_id INTEGER, pid VARCHAR,
--   tid VARCHAR: the run and thread whose frames count; t BIGINT: the time, the launch call's start) and
--   `frames` (run_id INTEGER, pid VARCHAR, tid VARCHAR, start_ns BIGINT, end_ns BIGINT, then any columns of
--   the frame) meet where the frame is open on the thread at t: start_ns <= t < end_ns. Output: launch_run
--   INTEGER, launch_seq BIGINT, launch_t BIGINT, then every column of `frames`. Callers take the innermost
--   frame (the latest to start) or the outermost.
--   A hash join on (run, thread, 1 ms time bucket) plus the range condition: each frame is listed once per
--   bucket it covers, each launch in its own bucket. A range join on the thread alone degenerates into hash
--   join + filter over every frame of the thread, and an IEJoin without the thread took minutes for 673 k
--   launches and as many frames (a 1 GB Kineto trace).
CREATE OR REPLACE TEMP MACRO enclosing(launches, frames) AS TABLE
    WITH f AS (
        SELECT *, unnest(range(start_ns // 1000000, (end_ns - 1) // 1000000 + 1)) AS enclosing_bucket
        FROM query_table(frames)
    )
    SELECT l.run_id AS launch_run, l.seq AS launch_seq, l.t AS launch_t, f.* EXCLUDE (enclosing_bucket)
    FROM query_table(launches) l
    JOIN f ON f.run_id = l.host_run_id AND f.pid IS NOT DISTINCT FROM l.pid AND f.tid IS NOT DISTINCT FROM l.tid
          AND f.enclosing_bucket = l.t // 1000000 AND f.start_ns <= l.t AND l.t < f.end_ns;
