-- Whether the kernels of a candidate set of two or more names run side by side in each layer rather than
-- take turns layer by layer, after anchor_candidates.sql laid out its _anchors. Between consecutive anchors
-- of a run (its first 256), count the kernels of the stream between each anchor and the next, and group the
-- counts by the pair of names (from, to). Names that take turns layer by layer (sliding-window and full
-- attention, a hybrid model's linear and full attention) have a whole layer between any two anchors: 10
-- kernels or more in a decode layer, more in training. Two kernels of one layer's attention (a
-- flash-attention backward's dot(dO, O) step and its dQ conversion around the main kernel; ck_fmha's dO.O
-- and its dQ/dK/dV kernel) have at most the main kernel between them one way and the rest of the layer the
-- other way (tracedb.engine.segmentation.candidates: SIDE_KERNELS): as an anchor they would read every layer
-- as two, or cut each layer into a pass of its own, so the run's consecutive anchors are counted, not a
-- pass's. The times between anchors do not tell them apart: the main backward kernel between the two is as
-- long as the rest of its layer.
-- Inputs: _anchors (run_id: the candidate index), _stream.
-- Parameters:
--   $cands INTEGER[]: the candidate sets to look at (each of two or more names)
-- Output: rows, one per candidate of $cands that has two anchors or more:
--   cand INTEGER: the candidate index
--   fewest DOUBLE: the smallest, over the (from, to) name pairs, of the median kernel count between anchors
--   most DOUBLE: the largest such median
--   ways BIGINT: the (from, to) name pairs seen
WITH picked AS (
    -- a candidate's first 256 anchors: its medians settle long before, and the positions below then cost a
    -- part of the stream (on a 1 GB trace of 698 k kernels, numbering them all took 0.22 s)
    SELECT run_id AS cand, src_run, seq, start_ns FROM _anchors WHERE run_id IN (SELECT unnest($cands)) AND idx < 256
), spans AS (
    SELECT src_run, min(start_ns) AS lo, max(start_ns) AS hi FROM picked GROUP BY src_run
), positions AS (
    -- each kernel's position in its run's stream over the anchors' span: the kernels between two anchors are
    -- a difference
    SELECT s.run_id, s.seq, s.name, row_number() OVER (PARTITION BY s.run_id ORDER BY s.start_ns, s.seq) AS pos
    FROM _stream s JOIN spans p ON s.run_id = p.src_run AND s.start_ns BETWEEN p.lo AND p.hi
), placed AS (
    SELECT p.cand, s.name, s.pos FROM picked p JOIN positions s ON s.run_id = p.src_run AND s.seq = p.seq
), gaps AS (
    SELECT cand, lag(name) OVER w AS from_name, name AS to_name, pos - lag(pos) OVER w - 1 AS between_n
    FROM placed WINDOW w AS (PARTITION BY cand ORDER BY pos)
), kinds AS (
    SELECT cand, from_name, to_name, median(between_n) AS m FROM gaps WHERE from_name IS NOT NULL GROUP BY ALL
)
SELECT cand, min(m)::DOUBLE AS fewest, max(m)::DOUBLE AS most, count(*) AS ways FROM kinds GROUP BY cand ORDER BY cand;
