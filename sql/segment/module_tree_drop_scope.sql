-- The attribution scope dropped when no kernel is left in it to attribute.
-- Inputs: _attr_scope (attribute_scope_anchors.sql).
-- Parameters: none.
-- Output: TEMP _attr_scope dropped.
DROP TABLE _attr_scope;
