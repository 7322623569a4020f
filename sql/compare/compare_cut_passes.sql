-- Report compare: the compared passes that the capture cut (fewer anchors than a full pass), for a note each.
-- Inputs: _passes (segment_passes.sql), _assigned (segment_assign.sql).
-- Parameters: none.
-- Output: rows, one per partial pass with assigned kernels, in run and pass order:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   anchors BIGINT: its anchors
--   expected BIGINT: the anchors of a full pass
SELECT p.run_id, p.pass, p.anchors, p.expected FROM _passes p WHERE p.partial AND EXISTS
(SELECT 1 FROM _assigned a WHERE a.run_id = p.run_id AND a.pass = p.pass)
ORDER BY p.run_id, p.pass;
