-- The module attribution dropped once read (module attribution, its categories and the critical path's modules
-- make it for a while only).
-- Inputs: _attr (attribute_modules.sql).
-- Parameters: none.
-- Output: TEMP _attr dropped.
DROP TABLE _attr;
