-- What runs SQL when a table is written, part two: a trigger (DuckDB 2.0 has them, in stores of storage
-- v2.0.0; tracedb's tables have none). Asked on writable opens only, and only of DuckDB 2.0 or later (1.5 has
-- no duckdb_triggers()), where store_check_constraints.sql finds nothing (engine/store/catalog.py).
-- Inputs: system.main.duckdb_triggers() of the current database.
-- Parameters: none.
-- Output: rows, one per trigger on a table of the schema main:
--   what VARCHAR: `a TRIGGER (name)`, as the refusal names it
--   table_name VARCHAR: its table
SELECT 'a TRIGGER (' || trigger_name || ')' AS what, table_name FROM system.main.duckdb_triggers()
WHERE database_name = system.main.current_database() AND schema_name = 'main';
