-- Export `perfetto`: the passes, layers, prologues and epilogues of the selected passes, as report layers and report
-- timeline count them (a layer's start is its first kernel's start, its wall first start to last end),
-- with the time per category and, for the units inside a pass, the communication overlapped by computing.
-- Inputs: _assigned (segment_assign.sql, after module_categories.sql), _bd_units (breakdown_union.sql over
--   breakdown_activity_layers.sql by layer).
-- Parameters: none.
-- Output: TEMP _pf_units, one row per pass, (pass, layer), prologue and epilogue:
--   unit VARCHAR: pass, layer, prologue or epilogue
--   pass BIGINT: the pass
--   layer BIGINT: the layer (NULL for a pass, a prologue or an epilogue)
--   kernels BIGINT: its kernels
--   start_ns BIGINT: first kernel start
--   end_ns BIGINT: last kernel end
--   sum_ns BIGINT: the kernels' time
--   comm_count BIGINT: communication kernels
--   overlap_ns BIGINT: communication overlapped by computing (report breakdown's overlapped); NULL for a pass
--   cat_ns MAP(INTEGER, BIGINT): time per category (_rules.cat_ord), the categories with kernels in it
CREATE OR REPLACE TEMP TABLE _pf_units AS
WITH units AS (
    SELECT 'pass' AS unit, pass, NULL::BIGINT AS layer, start_ns, end_ns, dur_ns, is_comm, cat_ord FROM _assigned
    UNION ALL
    SELECT unit, pass, layer, start_ns, end_ns, dur_ns, is_comm, cat_ord
    FROM _assigned
), cats AS (
    SELECT unit, pass, layer, cat_ord, count(*) AS kernels, min(start_ns) AS start_ns, max(end_ns) AS end_ns,
        sum(dur_ns)::BIGINT AS ns, count(*) FILTER (WHERE is_comm) AS comm_count
    FROM units GROUP BY ALL
)
SELECT c.unit, c.pass, c.layer, sum(c.kernels)::BIGINT AS kernels, min(c.start_ns) AS start_ns,
    max(c.end_ns) AS end_ns, sum(c.ns)::BIGINT AS sum_ns, sum(c.comm_count)::BIGINT AS comm_count,
    CASE WHEN c.unit <> 'pass' THEN coalesce(any_value(o.computing_ns + o.communication_ns - o.busy_ns), 0)
         END::BIGINT AS overlap_ns,
    map(list(c.cat_ord::INTEGER ORDER BY c.cat_ord), list(c.ns ORDER BY c.cat_ord)) AS cat_ns
FROM cats c LEFT JOIN _bd_units o ON c.unit <> 'pass' AND o.pass = c.pass AND o.layer IS NOT DISTINCT FROM c.layer
    AND o.unit = c.unit
GROUP BY c.unit, c.pass, c.layer;
