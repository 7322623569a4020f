-- Report `ranks`: what each rank's selected passes hold, to check that the ranks can be compared layer by
-- layer (the same layer count in their full passes) and to find the passes they share.
-- Inputs: _assigned, _passes.
-- Parameters:
--   $run_ids INTEGER[]: the runs
-- Output: rows, one per (run, selected pass):
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   layers BIGINT: its layers (the prologue not counted)
--   partial BOOLEAN: the pass holds fewer anchors than a full one (a capture cut mid-pass)
SELECT a.run_id, a.pass, count(DISTINCT a.layer) AS layers, any_value(p.partial) AS partial
FROM _assigned a JOIN _passes p USING (run_id, pass)
WHERE a.run_id IN (SELECT unnest($run_ids))
GROUP BY a.run_id, a.pass
ORDER BY a.run_id, a.pass;
