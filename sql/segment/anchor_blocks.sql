-- The model's own layers around candidate anchor kernels: for each kernel attributed by attribute_modules.sql,
-- the block (decoder layer) instance whose call launched it. A trace recorded with nn.Module frames names its
-- layers (TransformerBlock_0 ... TransformerBlock_35; Qwen2DecoderLayer_0 ... _23): the block of a kernel is
-- the outermost module on its launch's instance path whose class has two instances or more in the run (the
-- model and its stack are single; the decoder layer is the first to repeat). Each forward pass calls every
-- block once, in order, so the calls say where a pass starts (anchor_breaks.sql) and how many anchors a
-- layer holds (anchor_modules.sql).
-- Inputs: _attr (attribute_modules.sql over some candidate anchor kernels), host_events.
-- Parameters: none.
-- Output: TEMP _kernel_blocks (created here when missing), one row added per kernel of _attr not in it:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   framed BOOLEAN: launched inside some nn.Module frame (a capture that starts mid-pass has none around its
--     first kernels: their frames were entered before it started)
--   cls VARCHAR: the block class ('TransformerBlock'); NULL when no repeated class frames the launch
--   inst VARCHAR: the block instance ('TransformerBlock_7')
--   inst_no BIGINT: its number (7); NULL when the instance name ends in no number
--   call_ns BIGINT: the start of the block instance's frame around the launch: one call per forward pass
-- Output: TEMP _block_classes (replaced), one row per run and repeated nn.Module class of the runs of _attr:
--   run_id INTEGER: the run
--   cls VARCHAR: the class
--   instances BIGINT: its distinct instances
--   first_inst VARCHAR: the lowest-numbered instance name
--   last_inst VARCHAR: the highest-numbered instance name
CREATE TEMP TABLE IF NOT EXISTS _kernel_blocks (run_id INTEGER, seq BIGINT, framed BOOLEAN, cls VARCHAR, inst VARCHAR,
    inst_no BIGINT, call_ns BIGINT);

CREATE OR REPLACE TEMP TABLE _block_classes AS
SELECT run_id, regexp_replace(substr(name, 12), '_\d+$', '') AS cls,
    count(DISTINCT substr(name, 12)) AS instances,
    arg_min(substr(name, 12), TRY_CAST(regexp_extract(name, '_(\d+)$', 1) AS BIGINT)) AS first_inst,
    arg_max(substr(name, 12), TRY_CAST(regexp_extract(name, '_(\d+)$', 1) AS BIGINT)) AS last_inst
FROM host_events
WHERE run_id IN (SELECT DISTINCT run_id FROM _attr UNION SELECT DISTINCT run_id FROM _kernel_blocks)
  AND cat = 'python_function' AND starts_with(name, 'nn.Module: ') AND regexp_matches(name, '_\d+$')
GROUP BY ALL
HAVING count(DISTINCT substr(name, 12)) >= 2;

INSERT INTO _kernel_blocks
WITH steps AS (
    -- each instance on the kernel's module path, outermost first, with the start of its frame
    SELECT a.run_id, a.seq, s.inst, s.depth, regexp_replace(s.inst, '_\d+$', '') AS cls, a.module_calls[s.depth] AS call_ns
    FROM _attr a, LATERAL (SELECT unnest(string_split(a.module_path, '/')) AS inst,
                                  generate_subscripts(string_split(a.module_path, '/'), 1) AS depth) s
    WHERE a.nn_module IS NOT NULL
), blocks AS (
    SELECT s.run_id, s.seq, arg_min(s.cls, s.depth) AS cls, arg_min(s.inst, s.depth) AS inst,
        arg_min(s.call_ns, s.depth) AS call_ns
    FROM steps s JOIN _block_classes c ON c.run_id = s.run_id AND c.cls = s.cls
    GROUP BY ALL
)
SELECT a.run_id, a.seq, a.nn_module IS NOT NULL, b.cls, b.inst, TRY_CAST(regexp_extract(b.inst, '_(\d+)$', 1) AS BIGINT),
    b.call_ns
FROM _attr a LEFT JOIN blocks b USING (run_id, seq)
WHERE (a.run_id, a.seq) NOT IN (SELECT run_id, seq FROM _kernel_blocks);
