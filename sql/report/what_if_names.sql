-- Report `what-if --kernel REGEX=PCT`: the device nodes whose kernel name the pattern matches, with DuckDB's
-- RE2 (linear time in the name, as --anchor's patterns: a pattern cannot make a hostile name take forever).
-- Inputs: _cp_nodes (critical_path_nodes.sql).
-- Parameters:
--   $run_id INTEGER: the run
--   $pattern VARCHAR: the RE2 pattern
-- Output: rows, one per matching node:
--   node BIGINT: its id
SELECT id AS node
FROM _cp_nodes
WHERE run_id = $run_id AND side = 'device' AND regexp_matches(coalesce(name, ''), $pattern)
ORDER BY id;
