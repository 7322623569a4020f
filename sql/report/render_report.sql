-- A report's rows kept in a TEMP table, from which the rendering reads their columns and casts every cell to
-- text inside DuckDB. The placeholder query is a report query of tracedb's own files (never the user's text).
-- Inputs: what the report query reads.
-- Parameters: none (the report query's own are bound with it).
-- Output: TEMP _report, the report query's rows and columns.
CREATE OR REPLACE TEMP TABLE _report AS
{query}
