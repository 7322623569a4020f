-- Stage 4: give every kernel of the selected passes its (pass, layer, block, ordinal) and category.
-- Inputs: kernels, _windows, _anchor_pass, _sel(run_id, pass) (the passes to assign), _rules(ord,
--   category, pattern, cat_ord). Parameters: $run_ids INTEGER[]; $layer_offset; $blocks_per_layer.
-- Blocks: block b holds the kernels starting in [boundary_b, boundary_b+1); boundary_b is anchor b's
--   start, or with a layer start offset o the start of the kernel o positions before anchor b in
--   (start_ns, seq) order (clamped to the window's first kernel). layer = block // blocks_per_layer;
--   kernels before the first boundary have no layer: the prologue. ordinal counts from 0 within the layer.
-- Kernels join their window and their block by ASOF JOIN keyed by run_id (a range join with a run_id
--   equality degenerates to hash join + filter: 60 s instead of 0.07 s on 673k kernels, PERFORMANCE.md).
-- Categories: the first rule (in ord order) whose pattern matches the name or op type, else 'other';
--   evaluated once per distinct (name, op_type).
-- Output: TEMP _assigned(run_id, pass, layer, block, half, ordinal, seq, start_ns, end_ns, dur_ns, name,
--   op_type, kind, input_shapes, input_dtypes, category, cat_ord).
CREATE OR REPLACE TEMP TABLE _member AS
WITH w AS (
    SELECT w.* FROM _windows w JOIN _sel s USING (run_id, pass)
)
SELECT k.run_id, w.pass, k.seq, k.start_ns, k.dur_ns, k.name, k.op_type, k.kind, k.input_shapes, k.input_dtypes
FROM kernels k ASOF JOIN w ON k.run_id = w.run_id AND k.start_ns >= w.win_start
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.start_ns <= w.win_end;
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
CREATE OR REPLACE TEMP TABLE _cats AS
SELECT n.name, n.op_type, coalesce(arg_min(r.category, r.ord), 'other') AS category
FROM (SELECT DISTINCT name, op_type FROM _member) n
LEFT JOIN _rules r
    ON regexp_matches(coalesce(n.name, ''), r.pattern) OR regexp_matches(coalesce(n.op_type, ''), r.pattern)
GROUP BY ALL;
CREATE OR REPLACE TEMP TABLE _assigned AS
WITH blocked AS (
    SELECT m.*, b.block
    FROM _member m ASOF LEFT JOIN _marks b
        ON m.run_id = b.run_id AND m.pass = b.pass AND m.start_ns >= b.bstart
)
SELECT k.run_id, k.pass, k.block // $blocks_per_layer AS layer, k.block, k.block % $blocks_per_layer AS half,
    row_number() OVER (PARTITION BY k.run_id, k.pass, k.block // $blocks_per_layer ORDER BY k.start_ns, k.seq) - 1
        AS ordinal,
    k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns, k.dur_ns, k.name, k.op_type, k.kind,
    k.input_shapes, k.input_dtypes, c.category, r.cat_ord
FROM blocked k
JOIN _cats c ON c.name IS NOT DISTINCT FROM k.name AND c.op_type IS NOT DISTINCT FROM k.op_type
JOIN (SELECT DISTINCT category, cat_ord FROM _rules) r ON r.category = c.category;
DROP TABLE _member;
