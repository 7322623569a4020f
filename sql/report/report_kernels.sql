-- Report `kernels`: the hot kernels of the selected passes (and layer, when $layer is given), ranked.
-- Inputs: _assigned, kernels (names), kernel_names (short names), _rules (category names), runs.
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
--   $layer INTEGER: the layer; NULL: all layers
--   $top INTEGER: kernels per (run, pass); 0: all
--   $rest BOOLEAN: one more row per (run, pass) for the kernels past $top (rank and name empty), so that the
--     rows add up to the selection's time
-- Output: rows, one per (run, pass, name, op_type), ranked (then the rest, with $rest):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass
--   layer BIGINT: --layer (empty when all layers)
--   rank BIGINT: by time, from 1
--   name VARCHAR: the kernel name
--   short_name VARCHAR: its short name (terminal and Markdown tables show it instead of name); the rest row: (N more)
--   op_type VARCHAR: its op type
--   category VARCHAR: its category
--   count BIGINT: its kernels
--   sum_us DECIMAL(38,3): their time
--   avg_us DECIMAL(23,3): their mean duration
--   share_pct DECIMAL(6,2): share of the selection's kernel time, 2 decimals
WITH sel AS (
    SELECT a.run_id, a.pass, a.dur_ns, a.cat_ord, k.name, k.op_type
    FROM _assigned a JOIN kernels k USING (run_id, seq)
    WHERE $layer IS NULL OR a.layer = $layer
), grouped AS (
    SELECT s.run_id, s.pass, s.name, s.op_type, c.category, count(*) AS n, sum(s.dur_ns) AS ns
    FROM sel s JOIN (SELECT DISTINCT category, cat_ord FROM _rules) c USING (cat_ord) GROUP BY ALL
), ranked AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, pass ORDER BY ns DESC, name, op_type) AS rank,
        sum(ns) OVER (PARTITION BY run_id, pass) AS total_ns
    FROM grouped
), shown AS (
    SELECT *, false AS is_rest FROM ranked WHERE $top = 0 OR rank <= $top
    UNION ALL BY NAME
    SELECT run_id, pass, NULL AS name, NULL AS op_type, NULL AS category, sum(n)::BIGINT AS n, sum(ns) AS ns,
        NULL AS rank, any_value(total_ns) AS total_ns, true AS is_rest, count(*) AS more
    FROM ranked WHERE $rest AND $top > 0 AND rank > $top GROUP BY run_id, pass
)
SELECT r.name AS run, k.pass, $layer::BIGINT AS layer, k.rank, k.name,
    CASE WHEN k.is_rest THEN '(' || k.more || ' more)' ELSE coalesce(kn.short_name, k.name) END AS short_name,
    k.op_type, k.category, k.n AS count,
    us(k.ns) AS sum_us, us(round(k.ns / k.n)::BIGINT) AS avg_us,
    round(100.0 * k.ns / nullif(k.total_ns, 0), 2)::DECIMAL(6, 2) AS share_pct
FROM shown k JOIN runs r USING (run_id) LEFT JOIN kernel_names kn ON kn.name = k.name
ORDER BY list_position($run_ids, k.run_id), k.pass, k.is_rest, k.rank;
