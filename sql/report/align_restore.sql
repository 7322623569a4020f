-- A TEMP table of the caller's segmentation put back from the copy align_keep.sql made, the copy dropped.
-- Inputs: the TEMP table of the placeholder saved.
-- Parameters: none.
-- Output: the TEMP table of the placeholder table, as it was before; the copy dropped.
CREATE OR REPLACE TEMP TABLE {table} AS SELECT * FROM {saved};
DROP TABLE {saved};
