-- The tables `tracedb segment` gathers its phases' segmentations in, dropped before it starts.
-- Inputs: _seg_all, _seg_stages, _seg_kinds of an earlier `tracedb segment` of the session, if any.
-- Parameters: none.
-- Output: TEMP _seg_all, _seg_stages and _seg_kinds dropped.
DROP TABLE IF EXISTS _seg_all;
DROP TABLE IF EXISTS _seg_stages;
DROP TABLE IF EXISTS _seg_kinds;
