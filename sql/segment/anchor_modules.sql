-- What the model's own module tree says of each candidate anchor set: the repeated block that launched
-- its kernels and how many instances of that block the run has (anchor_blocks.sql). A candidate whose
-- kernels nearly all lie in one such block class should hold one anchor per instance.
-- Inputs: _anchors (anchor_candidates.sql: run_id is the candidate index, src_run the kernel's run),
--   _kernel_blocks and _block_classes (anchor_blocks.sql, over every kernel of _anchors), _range_classes
--   (anchor_layer_ranges.sql: the classes of layer ranges; may be missing).
-- Parameters: none.
-- Output: rows, one per candidate with framed kernels, in candidate order:
--   cand INTEGER: the candidate index
--   anchors BIGINT: its kernels
--   framed BIGINT: those launched inside an instance of its most common block class
--   with_frames BIGINT: those launched inside any nn.Module frame (a capture that starts mid-pass has none
--     around its first kernels: their frames were entered before it started)
--   block VARCHAR: that class ('TransformerBlock')
--   instances BIGINT: the run's distinct instances of the class (nn.Module: <class>_<N> frames)
--   first_inst VARCHAR: the lowest-numbered instance, e.g. 'TransformerBlock_0'
--   last_inst VARCHAR: the highest-numbered instance, e.g. 'TransformerBlock_35'
CREATE TEMP TABLE IF NOT EXISTS _block_classes (run_id INTEGER, cls VARCHAR, instances BIGINT, first_inst VARCHAR,
    last_inst VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS _range_classes (run_id INTEGER, cls VARCHAR, instances BIGINT, first_inst VARCHAR,
    last_inst VARCHAR);
WITH classes AS (
    SELECT * FROM _block_classes UNION ALL SELECT * FROM _range_classes
), per_cand AS (
    -- the block of the framed kernels: a candidate that joins a framed name with names launched where no frame
    -- was recorded (graph replays without their capture) is held to that block's instances all the same
    SELECT a.run_id AS cand, a.src_run, count(*) AS anchors, mode(b.cls) FILTER (WHERE b.cls IS NOT NULL) AS block,
        count(b.cls) AS any_framed, count(*) FILTER (WHERE b.framed) AS with_frames
    FROM _anchors a LEFT JOIN _kernel_blocks b ON b.run_id = a.src_run AND b.seq = a.seq
    GROUP BY ALL
)
SELECT p.cand, p.anchors,
    (SELECT count(*) FROM _anchors a JOIN _kernel_blocks b ON b.run_id = a.src_run AND b.seq = a.seq
     WHERE a.run_id = p.cand AND b.cls = p.block) AS framed,
    p.with_frames, p.block, c.instances, c.first_inst, c.last_inst
FROM per_cand p JOIN classes c ON c.run_id = p.src_run AND c.cls = p.block
WHERE p.any_framed > 0
ORDER BY p.cand;
