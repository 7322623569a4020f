-- How many anchor kernels segment_anchors.sql found over every run (none: the profile's fallback anchor).
-- Inputs: _anchors (segment_anchors.sql).
-- Parameters: none.
-- Output: one row, one column: the anchor kernels (count).
SELECT count(*) AS anchors FROM _anchors;
