-- Stage 4: give every kernel of the selected passes its (pass, layer, block) and category.
-- Blocks: block b holds the kernels starting in [boundary_b, boundary_b+1); boundary_b is anchor b's
--   start, or with a layer start offset o the start of the kernel o positions before anchor b in
--   (start_ns, seq) order (clamped to the window's first kernel). layer = block // blocks_per_layer;
--   kernels before the first boundary have no layer: the prologue; in a leading fragment (block_base > 0,
--   segment_passes.sql) they are the end of the layer before its first anchor's.
-- Kernels join their window and their block by ASOF JOIN keyed by run_id (a range join with a run_id
--   equality degenerates to hash join + filter: 60 s instead of 0.07 s on 673k kernels).
-- Inputs: kernels, _windows, _anchor_pass, _passes, TEMP _sel(run_id INTEGER, pass BIGINT) (the passes to
--   assign, from tracedb.engine.segment), _cats (categories.sql).
-- Parameters:
--   $run_ids INTEGER[]: the selected runs
--   $layer_offset INTEGER: the layer start offset o (0: layers start at their anchor)
--   $blocks_per_layer INTEGER: anchors per layer
--   $win_lo BIGINT: the earliest start of the selected windows
--   $win_hi BIGINT: the latest end of the selected windows; with $win_lo, constants the scan of kernels
--     prunes row groups with (one pass of the 1 GB trace: 0.31-0.45 s -> 0.017 s)
-- Output: TEMP _assigned, one row per kernel of the selected passes, kept narrow (2M rows for --pass
--   all): reports join kernels on (run_id, seq) for names and shapes:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layer BIGINT: block // $blocks_per_layer; NULL: the prologue
--   block BIGINT: the block (NULL: the prologue)
--   half BIGINT: block % $blocks_per_layer, the block within the layer
--   seq BIGINT: the kernel (kernels.seq)
--   start_ns BIGINT: its start
--   end_ns BIGINT: its end
--   dur_ns BIGINT: its duration
--   is_comm BOOLEAN: communication: logged as such (Ascend hcom rows) or named so (NCCL/RCCL kernels, by
--     category)
--   cat_ord INTEGER: its category (_rules.cat_ord): by name (_cats); module_categories.sql may update it
-- TEMP _marks (block boundaries) is scratch: no other file reads it.
CREATE OR REPLACE TEMP TABLE _member AS
WITH w AS (
    SELECT w.* FROM _windows w JOIN _sel s USING (run_id, pass)
)
-- communication: logged as such (Ascend hcom rows) or named so (NCCL/RCCL kernels, by category)
SELECT k.run_id, w.pass, k.seq, k.start_ns, k.dur_ns, k.kind = 'comm' OR c.category = 'communication' AS is_comm,
    c.cat_ord
FROM kernels k ASOF JOIN w ON k.run_id = w.run_id AND k.start_ns >= w.win_start
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.start_ns <= w.win_end AND k.start_ns BETWEEN $win_lo AND $win_hi;
CREATE OR REPLACE TEMP TABLE _marks AS
WITH offset_starts AS (
    SELECT run_id, pass, seq,
        coalesce(lag(start_ns, $layer_offset) OVER (PARTITION BY run_id, pass ORDER BY start_ns, seq),
                 min(start_ns) OVER (PARTITION BY run_id, pass)) AS bstart
    FROM _member WHERE $layer_offset > 0
), boundaries AS (
    SELECT a.run_id, a.pass, a.block, a.start_ns AS bstart
    FROM _anchor_pass a JOIN _sel s USING (run_id, pass) WHERE $layer_offset = 0
    UNION ALL
    SELECT a.run_id, a.pass, a.block, o.bstart
    FROM _anchor_pass a JOIN offset_starts o USING (run_id, pass, seq) WHERE $layer_offset > 0
)
-- two anchors on one boundary (same start): the later block owns it
SELECT run_id, pass, bstart, max(block) AS block FROM boundaries GROUP BY ALL;
CREATE OR REPLACE TEMP TABLE _assigned AS
WITH blocked AS (
    -- before the first boundary: the prologue, or in a leading fragment the end of the layer before its first
    SELECT m.*, coalesce(b.block, CASE WHEN p.block_base > 0 THEN p.block_base - 1 END) AS block
    FROM _member m ASOF LEFT JOIN _marks b ON m.run_id = b.run_id AND m.pass = b.pass AND m.start_ns >= b.bstart
    JOIN _passes p ON p.run_id = m.run_id AND p.pass = m.pass
)
SELECT run_id, pass, block // $blocks_per_layer AS layer, block, block % $blocks_per_layer AS half,
    seq, start_ns, start_ns + dur_ns AS end_ns, dur_ns, is_comm, cat_ord
FROM blocked;
DROP TABLE _member;
