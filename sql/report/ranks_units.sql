-- Report `ranks`: the figures of each rank in each (pass, layer), and per (pass, layer) how the ranks
-- differ. The rank's compute time in a layer is the union of the intervals of its non-communication
-- kernels there (breakdown_union.sql's computing_ns): a layer's sum or wall time hides a slow rank,
-- because the other ranks absorb its delay as waiting inside the collective that follows. The layer's
-- communication ops are matched across ranks by their order within the layer (the k-th op of the layer
-- on every rank is one collective); its arrival on a rank is the op's start plus the rank's clock
-- offset (engine/jobs/align.py). Per collective: the latest arrival and the rank that made it; per rank, its
-- wait (latest arrival - its own arrival, summed over the layer's collectives). Arrivals are compared within a
-- clock set only (ranks aligned to one clock: all of them, or each set of ranks that share collectives, such
-- as a TP group when only TP groups communicate); a layer's spread is the widest of its sets'.
-- The slowest rank of a (pass, layer) is the one with the most compute time (ties: the lower rank; none
-- when all ranks have the same); its
-- skew is (max - median) / median, median the lower middle value of the ranks' compute times (one
-- rank's own time). It is a straggler when skew >= $min_skew, so that the jitter of layers where no rank
-- is slow decides nothing, and when its skew is at least $peak_share of the largest skew that rank has as
-- the slowest in the same pass: a slow layer's kernels that run before its anchor (the norm and QKV
-- projection before attention) belong to the previous layer's unit, where they give that rank a smaller
-- skew (0.3 of the slow layer's in bench/gen_job.py's layers); the vote of report ranks --stragglers
-- counts only stragglers.
-- Pipeline stages: every rank has its stage (pp_stage; -1 when the job is no pipeline or the trace does not
-- say); a (pass, layer) is compared over the ranks of one stage only (they run the same model layers), and a
-- collective's place (pass, layer, k) is that on the ranks of the member's stage.
-- Layer keys: the prologue (layer NULL) is keyed as layer -1 (lk) and the epilogue as -2, so that joins
-- match them.
-- A rank with communication ops only (TEMP _rk_bare) takes part through its collectives: each op goes to
-- the (pass, layer, k) its instance (_coll_aligned) has on the ranks with kernels; its rows have no compute
-- or wall, and are left out of the compute comparison.
-- Inputs: _bd_units (breakdown_union.sql over breakdown_activity_layers.sql by layer), _bd_act, _coll_aligned
--   (align_apply.sql over every run, those without kernels too), TEMP _rk_ranks(run_id INTEGER, rank INTEGER,
--   offset_ns BIGINT, clock_set INTEGER, pp_stage INTEGER, layer_base BIGINT) (the runs compared, their rank,
--   the ns added to their timestamps, the run whose clock they read, their pipeline stage (-1: none) and the
--   model layer of their layer 0), TEMP _rk_bare(run_id INTEGER, rank INTEGER, clock_set INTEGER, pp_stage
--   INTEGER) (the runs with communication ops only).
-- Parameters:
--   $passes BIGINT[]: the passes compared (those every rank has)
--   $min_skew DOUBLE: the skew from which the slowest rank counts as a straggler
--   $peak_share DOUBLE: the share of the rank's largest skew in the pass a straggler's skew must reach
-- Output: TEMP _rk_inst, one row per collective (pass, layer, k-th communication op of the layer), stage and
--   clock set:
--   pp_stage INTEGER: the pipeline stage of its ranks (-1: none)
--   pass BIGINT: the pass
--   lk BIGINT: the layer (-1: the prologue, -2: the epilogue, -3: the whole run)
--   k BIGINT: its order among the layer's communication ops, from 0
--   clock_set INTEGER: the run whose clock its ranks' arrivals read (_rk_ranks.clock_set)
--   ranks BIGINT: the ranks that have it
--   first_ns BIGINT: the earliest aligned start
--   last_ns BIGINT: the latest aligned start (the last arrival)
--   last_rank INTEGER: the rank that arrived last (ties: the higher rank)
-- Output: TEMP _rk_layers, one row per (run, pass, layer):
--   run_id INTEGER: the run
--   rank INTEGER: its rank
--   pp_stage INTEGER: its pipeline stage (-1: none)
--   pass BIGINT: the pass
--   layer BIGINT: the layer (NULL: the prologue or the epilogue)
--   model_layer BIGINT: the layer's number in the model (its stage's first model layer + layer); NULL for a
--     rank without kernels
--   lk BIGINT: the layer (-1: the prologue, -2: the epilogue, -3: the whole run)
--   compute_ns BIGINT: union of its non-communication kernels' intervals; NULL for a rank without kernels
--   comm_ns BIGINT: union of its communication ops' intervals (a rank without kernels: their sum)
--   wall_ns BIGINT: first start to last end of its kernels and communication ops; NULL without kernels
--   collectives BIGINT: its communication ops in the layer
--   wait_ns BIGINT: sum over the layer's collectives of (latest arrival - its arrival)
--   late_ns BIGINT: sum over the layer's collectives of (its arrival - earliest arrival)
-- Output: TEMP _rk_cmp, one row per (stage, pass, layer):
--   pp_stage INTEGER: the pipeline stage (-1: none)
--   pass BIGINT: the pass
--   layer BIGINT: the layer (NULL: the prologue or the epilogue)
--   model_layer BIGINT: its number in the model
--   lk BIGINT: the layer (-1: the prologue, -2: the epilogue, -3: the whole run)
--   ranks BIGINT: the ranks that have it
--   min_ns BIGINT: the least compute time
--   median_ns BIGINT: the lower median compute time
--   max_ns BIGINT: the most compute time
--   slowest_rank INTEGER: the rank with the most compute time (ties: the lower rank); NULL when every
--     rank has the same
--   skew DECIMAL(12,3): (max - median) / median
--   straggler BOOLEAN: skew >= $min_skew and >= $peak_share x the rank's largest skew in the pass
--   collectives BIGINT: the collectives matched across ranks in the layer
--   last_rank INTEGER: the rank that arrived last at the collective of the widest arrival spread
--   spread_ns BIGINT: that spread (latest - earliest aligned start)
-- TEMP _rk_comm (the communication ops with their order and aligned start) is scratch: no other file reads it.
CREATE OR REPLACE TEMP TABLE _rk_comm AS
WITH placed AS (
    SELECT a.run_id, r.rank, r.clock_set, r.pp_stage, a.seq, a.pass, coalesce(a.layer, CASE a.unit WHEN 'epilogue' THEN -2 WHEN 'run' THEN -3 ELSE -1 END) AS lk,
        row_number() OVER (PARTITION BY a.run_id, a.pass, a.layer, a.unit ORDER BY a.s, a.seq) - 1 AS k,
        a.s + r.offset_ns AS s, a.e - a.s AS dur_ns
    FROM _bd_act a JOIN _rk_ranks r USING (run_id)
    WHERE a.is_comm AND list_contains($passes, a.pass)
), instance_place AS (
    -- a collective instance's place (pass, layer, k) on the ranks with kernels, by its member ops there
    -- (of its stage's ranks: another stage numbers its layers and ops otherwise)
    SELECT c.grp, c.mkey, p.pp_stage, min(p.pass) AS pass, min(p.lk) AS lk, min(p.k) AS k
    FROM _coll_aligned c JOIN placed p ON p.run_id = c.run_id AND p.seq = c.kseq
    GROUP BY c.grp, c.mkey, p.pp_stage
)
SELECT run_id, rank, clock_set, pp_stage, pass, lk, k, s, dur_ns FROM placed
UNION ALL
-- a rank with communication ops only: each of its ops where its instance is on the ranks of its stage
SELECT c.run_id, r.rank, r.clock_set, r.pp_stage, i.pass, i.lk, i.k, c.a_start, c.end_ns - c.start_ns
FROM _coll_aligned c JOIN _rk_bare r USING (run_id) JOIN instance_place i ON i.grp = c.grp AND i.mkey = c.mkey
    AND i.pp_stage = r.pp_stage;
CREATE OR REPLACE TEMP TABLE _rk_inst AS
SELECT pp_stage, pass, lk, k, clock_set, count(*) AS ranks, min(s) AS first_ns, max(s) AS last_ns,
    first(rank ORDER BY s DESC, rank DESC) AS last_rank
FROM _rk_comm
GROUP BY pp_stage, pass, lk, k, clock_set;
CREATE OR REPLACE TEMP TABLE _rk_layers AS
WITH waits AS (
    SELECT c.run_id, c.pass, c.lk, count(*) AS collectives,
        sum(i.last_ns - c.s)::BIGINT AS wait_ns, sum(c.s - i.first_ns)::BIGINT AS late_ns
    FROM _rk_comm c JOIN _rk_inst i USING (pp_stage, pass, lk, k, clock_set)
    GROUP BY c.run_id, c.pass, c.lk
)
SELECT u.run_id, r.rank, r.pp_stage, u.pass, u.layer, u.layer + r.layer_base AS model_layer, coalesce(u.layer, CASE u.unit WHEN 'epilogue' THEN -2 WHEN 'run' THEN -3 ELSE -1 END) AS lk,
    u.computing_ns AS compute_ns, u.communication_ns AS comm_ns, u.last_ns - u.first_ns AS wall_ns,
    coalesce(w.collectives, 0) AS collectives, coalesce(w.wait_ns, 0) AS wait_ns, coalesce(w.late_ns, 0) AS late_ns
FROM _bd_units u JOIN _rk_ranks r USING (run_id)
LEFT JOIN waits w ON w.run_id = u.run_id AND w.pass = u.pass
    AND w.lk = coalesce(u.layer, CASE u.unit WHEN 'epilogue' THEN -2 WHEN 'run' THEN -3 ELSE -1 END)
WHERE list_contains($passes, u.pass)
UNION ALL
-- a rank with communication ops only: no compute, no wall; its ops' time and its waits where they are placed
SELECT c.run_id, c.rank, c.pp_stage, c.pass, CASE WHEN c.lk >= 0 THEN c.lk END, NULL, c.lk, NULL, sum(c.dur_ns)::BIGINT, NULL,
    count(*), any_value(w.wait_ns), any_value(w.late_ns)
FROM _rk_comm c JOIN _rk_bare b USING (run_id) JOIN waits w USING (run_id, pass, lk)
GROUP BY c.run_id, c.rank, c.pp_stage, c.pass, c.lk;
CREATE OR REPLACE TEMP TABLE _rk_cmp AS
WITH ordered AS (
    -- compute is compared over the ranks with kernels
    SELECT *, count(*) OVER p AS n, row_number() OVER (PARTITION BY pp_stage, pass, lk ORDER BY compute_ns, rank) AS pos
    FROM _rk_layers
    WHERE compute_ns IS NOT NULL
    WINDOW p AS (PARTITION BY pp_stage, pass, lk)
), per_layer AS (
    SELECT pp_stage, pass, any_value(layer) AS layer, any_value(model_layer) AS model_layer, lk, count(*) AS ranks, min(compute_ns) AS min_ns,
        min(compute_ns) FILTER (WHERE pos = (n + 1) // 2) AS median_ns, max(compute_ns) AS max_ns,
        CASE WHEN max(compute_ns) > min(compute_ns) THEN first(rank ORDER BY compute_ns DESC, rank) END AS slowest_rank
    FROM ordered
    GROUP BY pp_stage, pass, lk
), skewed AS (
    SELECT *, (max_ns - median_ns)::DOUBLE / nullif(median_ns, 0) AS skew_d,
        ranks > 1 AND max_ns > median_ns AND max_ns - median_ns >= $min_skew * median_ns AS over
    FROM per_layer
), peaks AS (
    SELECT *, max(skew_d) FILTER (WHERE over) OVER (PARTITION BY pp_stage, pass, slowest_rank) AS peak
    FROM skewed
), widest AS (
    SELECT pp_stage, pass, lk, count(DISTINCT k) FILTER (WHERE ranks > 1) AS collectives,
        first(last_rank ORDER BY last_ns - first_ns DESC, k) FILTER (WHERE ranks > 1) AS last_rank,
        max(last_ns - first_ns) FILTER (WHERE ranks > 1) AS spread_ns
    FROM _rk_inst
    GROUP BY pp_stage, pass, lk
)
SELECT p.pp_stage, p.pass, p.layer, p.model_layer, p.lk, p.ranks, p.min_ns, p.median_ns, p.max_ns, p.slowest_rank,
    ratio3(p.max_ns - p.median_ns, p.median_ns) AS skew,
    p.over AND p.skew_d >= $peak_share * p.peak AS straggler,
    coalesce(w.collectives, 0) AS collectives, w.last_rank, w.spread_ns
FROM peaks p LEFT JOIN widest w USING (pp_stage, pass, lk);
