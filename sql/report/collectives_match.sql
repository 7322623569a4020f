-- The key that matches a communication op of one rank with the same op on the other ranks of its group:
-- (grp, mkey), where mkey is c10d's sequence number when every op of the group carries one, else the op's
-- 0-based order within its run and group (ord): the n-th collective of a group is the same collective on
-- every member, as NCCL requires every member to issue a communicator's collectives in one order. An
-- instance whose members disagree on the op or the size is flagged in the report, never used for alignment.
-- A rank that two of the runs claim (two copies of rank 0 in one job folder, two exports of one capture) is
-- matched with no one: which run is the rank is not known, and matching both would pair a rank with itself
-- (an arrival skew of 0 that says nothing), so the ops of those runs are left out, and every report that
-- pairs ranks (collectives, blame, ranks, clock alignment) reads this table; align_claims.sql names them.
-- Inputs: _coll_ops (collectives_ops.sql).
-- Parameters: none.
-- Output: TEMP _coll_match, one row per row of _coll_ops whose rank no other run of _coll_ops claims, with its
-- columns and these new columns:
--   mkey BIGINT: the instance key within the group
--   members BIGINT: runs that have an op of this instance
--   consistent BOOLEAN: one op name, one size and each run once across the instance's rows
--   alignable BOOLEAN: clock alignment may use it: consistent, two or more members, and not a point-to-point
--     op (send, recv, sendrecv) grouped by stream only: without c10d's group a send/recv pair of two selected
--     ranks may each be talking to a rank not selected, so their ends need not coincide
CREATE OR REPLACE TEMP TABLE _coll_match AS
WITH claimed AS (
    SELECT rank FROM _coll_ops WHERE rank IS NOT NULL GROUP BY rank HAVING count(DISTINCT run_id) > 1
), k AS (
    SELECT *, CASE WHEN bool_and(c10d_seq IS NOT NULL) OVER (PARTITION BY grp) THEN c10d_seq ELSE ord END AS mkey
    FROM _coll_ops
    WHERE rank IS NULL OR rank NOT IN (SELECT rank FROM claimed)
)
SELECT *, consistent AND members >= 2
        AND NOT (grp_source = 'stream' AND op IN ('send', 'recv', 'sendrecv', 'batchsendrecv')) AS alignable
FROM (
    SELECT *, count(*) OVER i AS members,
        (min(op) OVER i = max(op) OVER i)
          AND coalesce(min(nbytes) OVER i = max(nbytes) OVER i, TRUE)
          AND count(*) OVER i = count(DISTINCT run_id) OVER i
          AS consistent
    FROM k
    WINDOW i AS (PARTITION BY grp, mkey)
);
