-- A copy of a TEMP table of the caller's segmentation (_names, _rules or _cats), kept aside while the
-- categories of a job's communication ops replace it; align_restore.sql puts it back.
-- Inputs: the TEMP table of the placeholder table.
-- Parameters: none.
-- Output: TEMP table of the placeholder saved (the table's name followed by _align_saved), a copy of it.
CREATE OR REPLACE TEMP TABLE {saved} AS SELECT * FROM {table};
