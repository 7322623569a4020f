-- The assigned passes none of whose kernels has an nn.Module frame while some of their kernels stay other:
-- no module decided there.
-- Inputs: _assigned (segment_assign.sql), _attr (attribute_modules.sql).
-- Parameters:
--   $other_ord INTEGER: the position of the category other (_rules.cat_ord)
-- Output: rows, one per such (run, pass), in that order:
--   run_id INTEGER: the run
--   pass BIGINT: the pass
--   other_ns HUGEINT: the time of its kernels of category other
--   has_ops BOOLEAN: some of its kernels have a launching cpu_op
SELECT s.run_id, s.pass, sum(s.dur_ns) FILTER (WHERE s.cat_ord = $other_ord) AS other_ns,
    count(a.cpu_op) > 0 AS has_ops
FROM _assigned s LEFT JOIN _attr a USING (run_id, seq)
GROUP BY ALL HAVING count(a.nn_module) = 0 AND count(*) FILTER (WHERE s.cat_ord = $other_ord) > 0 ORDER BY ALL;
