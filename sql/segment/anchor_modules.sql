-- What the model's own module tree says of each candidate anchor set: the repeated block that launched
-- its kernels and how many instances of that block the run has. A trace recorded with nn.Module frames
-- names its layers (TransformerBlock_0 ... TransformerBlock_35; Qwen2DecoderLayer_0 ... _23): the block
-- of an anchor kernel is the outermost module on its launch's instance path whose class has two instances
-- or more in the run (the model and its stack are single; the decoder layer is the first to repeat). A
-- candidate whose kernels nearly all lie in one such block class should hold one anchor per instance.
-- Inputs: _anchors (anchor_candidates.sql: run_id is the candidate index, src_run the kernel's run), _attr
--   (attribute_modules.sql over attribute_scope_anchors.sql's scope), host_events.
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
WITH classes AS (
    SELECT run_id, regexp_replace(substr(name, 12), '_\d+$', '') AS cls,
        count(DISTINCT substr(name, 12)) AS instances,
        arg_min(substr(name, 12), TRY_CAST(regexp_extract(name, '_(\d+)$', 1) AS BIGINT)) AS first_inst,
        arg_max(substr(name, 12), TRY_CAST(regexp_extract(name, '_(\d+)$', 1) AS BIGINT)) AS last_inst
    FROM host_events
    WHERE run_id IN (SELECT DISTINCT run_id FROM _attr) AND cat = 'python_function'
      AND starts_with(name, 'nn.Module: ') AND regexp_matches(name, '_\d+$')
    GROUP BY ALL
), steps AS (
    -- each instance on the anchor's module path, outermost first
    SELECT a.run_id, a.seq, s.inst, s.depth, regexp_replace(s.inst, '_\d+$', '') AS cls
    FROM _attr a, LATERAL (SELECT unnest(string_split(a.module_path, '/')) AS inst,
                                  generate_subscripts(string_split(a.module_path, '/'), 1) AS depth) s
    WHERE a.nn_module IS NOT NULL
), blocks AS (
    SELECT s.run_id, s.seq, arg_min(s.cls, s.depth) AS cls
    FROM steps s JOIN classes c ON c.run_id = s.run_id AND c.cls = s.cls
    WHERE c.instances >= 2
    GROUP BY ALL
), per_cand AS (
    SELECT a.run_id AS cand, a.src_run, count(*) AS anchors, mode(b.cls) AS block,
        count(*) FILTER (WHERE b.cls IS NOT NULL) AS any_framed, count(t.seq) AS with_frames
    FROM _anchors a LEFT JOIN blocks b ON b.run_id = a.src_run AND b.seq = a.seq
    LEFT JOIN _attr t ON t.run_id = a.src_run AND t.seq = a.seq AND t.nn_module IS NOT NULL
    GROUP BY ALL
)
SELECT p.cand, p.anchors,
    (SELECT count(*) FROM _anchors a JOIN blocks b ON b.run_id = a.src_run AND b.seq = a.seq
     WHERE a.run_id = p.cand AND b.cls = p.block) AS framed,
    p.with_frames, p.block, c.instances, c.first_inst, c.last_inst
FROM per_cand p JOIN classes c ON c.run_id = p.src_run AND c.cls = p.block
WHERE p.any_framed > 0
ORDER BY p.cand;
