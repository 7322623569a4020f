-- The model's layers around candidate anchor kernels where the trace names them with ranges instead of
-- nn.Module frames: a user annotation (an NVTX range from Nsight Systems, a record_function in PyTorch)
-- named after a layer and its number around the launch (SGLang's and vLLM's layerwise NVTX markers name
-- each range after the module path, model.layers.3 or model.layers.3.self_attn; Megatron and NeMo ranges
-- layers.3, Layer 3). The outermost such range around a launch is the kernel's block, its prefix the block
-- class and its number the instance: each forward pass opens the ranges of every layer once, in order, as it
-- calls the modules (anchor_blocks.sql).
-- Inputs: _anchors (src_run: the kernel's run), kernels, host_events (launches_of and enclosing:
--   launch_macros.sql), _kernel_blocks (anchor_blocks.sql; may be missing).
-- Parameters:
--   $pattern VARCHAR: RE2 pattern of a layer range name, group 1 the block class (the name up to the word
--     layer or block), group 2 the layer number (tracedb.engine.segmentation.module_tree: LAYER_RANGE)
-- Output: TEMP _kernel_blocks (anchor_blocks.sql's columns), rows added or completed for the kernels of
--   _anchors that no nn.Module block frames: framed true, cls the range's prefix ('model.layers'), inst
--   '<cls>_<N>', inst_no N, call_ns the start of the range.
-- Output: TEMP _range_classes (replaced), one row per run and range class of two numbers or more:
--   run_id INTEGER: the run
--   cls VARCHAR: the range's prefix ('model.layers')
--   instances BIGINT: its distinct numbers
--   first_inst VARCHAR: '<cls>_<lowest number>'
--   last_inst VARCHAR: '<cls>_<highest number>'
-- TEMP _range_frames, _range_launches and _range_blocks are scratch, dropped at the end.
CREATE TEMP TABLE IF NOT EXISTS _kernel_blocks (run_id INTEGER, seq BIGINT, framed BOOLEAN, cls VARCHAR, inst VARCHAR,
    inst_no BIGINT, call_ns BIGINT);

CREATE OR REPLACE TEMP TABLE _range_frames AS
WITH named AS (
    -- the pattern once per distinct name: a bound pattern is compiled again for every row it meets
    SELECT DISTINCT run_id, name FROM host_events
    WHERE run_id IN (SELECT DISTINCT src_run FROM _anchors) AND cat = 'user_annotation'
), layered AS (
    SELECT run_id, name, regexp_extract(name, $pattern, 1) AS cls,
        TRY_CAST(regexp_extract(name, $pattern, 2) AS BIGINT) AS inst_no
    FROM named WHERE regexp_matches(name, $pattern)
)
SELECT h.run_id, h.pid, h.tid, h.start_ns, h.start_ns + greatest(h.dur_ns, 1) AS end_ns, l.cls, l.inst_no
FROM host_events h JOIN layered l ON l.run_id = h.run_id AND l.name = h.name
WHERE h.cat = 'user_annotation' AND l.inst_no IS NOT NULL;

CREATE OR REPLACE TEMP TABLE _range_classes AS
SELECT run_id, cls, count(DISTINCT inst_no) AS instances, cls || '_' || min(inst_no) AS first_inst,
    cls || '_' || max(inst_no) AS last_inst
FROM _range_frames GROUP BY run_id, cls HAVING count(DISTINCT inst_no) >= 2;

CREATE OR REPLACE TEMP TABLE _range_launches AS
WITH scope AS (
    SELECT DISTINCT a.src_run AS run_id, a.seq FROM _anchors a
    WHERE NOT EXISTS (SELECT 1 FROM _kernel_blocks b WHERE b.run_id = a.src_run AND b.seq = a.seq AND b.cls IS NOT NULL)
      AND EXISTS (SELECT 1 FROM _range_classes)     -- no layer range of two numbers: no launch to look up
), scoped AS (
    SELECT s.run_id, s.seq, k.correlation_id FROM scope s JOIN kernels k USING (run_id, seq)
)
SELECT s.run_id, s.seq, s.run_id AS host_run_id, l.pid, l.tid, l.call_ns AS t
FROM scoped s JOIN launches_of('scoped') l USING (run_id, correlation_id);

CREATE OR REPLACE TEMP TABLE _range_blocks AS
SELECT f.launch_run AS run_id, f.launch_seq AS seq, arg_min(f.cls, f.start_ns) AS cls,
    arg_min(f.inst_no, f.start_ns) AS inst_no, min(f.start_ns) AS call_ns
FROM enclosing('_range_launches', '_range_frames') f
SEMI JOIN _range_classes c ON c.run_id = f.run_id AND c.cls = f.cls
GROUP BY f.launch_run, f.launch_seq;

DELETE FROM _kernel_blocks WHERE (run_id, seq) IN (SELECT run_id, seq FROM _range_blocks);
INSERT INTO _kernel_blocks
SELECT run_id, seq, true, cls, cls || '_' || inst_no, inst_no, call_ns FROM _range_blocks;
DROP TABLE _range_blocks;
DROP TABLE _range_launches;
DROP TABLE _range_frames;
