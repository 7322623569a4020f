-- What runs SQL when a table is written, part one: a CHECK constraint (tracedb's tables have none). Looked for
-- on writable opens only, as a read runs none; triggers, which DuckDB 2.0 brought, are store_triggers.sql,
-- asked where this finds nothing (engine/store/catalog.py's _refuse_code).
-- Inputs: system.main.duckdb_constraints() of the current database.
-- Parameters: none.
-- Output: rows, one per CHECK constraint of a table of the schema main:
--   what VARCHAR: `a constraint ` and the constraint's text, as the refusal names it
--   table_name VARCHAR: its table
SELECT 'a constraint ' || constraint_text AS what, table_name FROM system.main.duckdb_constraints()
WHERE database_name = system.main.current_database() AND schema_name = 'main' AND constraint_type = 'CHECK';
