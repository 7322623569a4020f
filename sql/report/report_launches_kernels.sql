-- Report `launches`, --by kernel: per kernel name, its launches and the idle time it ended. Every device
-- activity of the runs (kernels, communication ops, memcpy, memset) is in one row, in the pass and layer
-- segmentation gave it (_assigned; empty without an anchor, and for activities outside the selected
-- passes). The idle columns are the run's gaps (launches_gaps.sql over the whole run), each on the row of
-- the kernel that ended it: summed over every row they are the run's free time. Memcpy and memset end no
-- gap, since, as in report breakdown, they do not make the device busy. delay quantiles are nearest-rank
-- (quantile_disc with a DECIMAL fraction: the ceil(q x n)-th smallest, exact).
-- Inputs: kernels, kernel_names, runs, _la_calls (launches_calls.sql), _la_act (launches_gaps.sql over
--   the runs as units), _assigned (segment_assign.sql; may be empty: without an anchor tracedb.engine makes
--   it with the columns run_id, seq, pass, layer and unit only).
-- Parameters:
--   $run_ids INTEGER[]: the runs, in output order
-- Output: rows, one per (run, pass, layer, kernel name, kind):
--   run VARCHAR: the run's name
--   pass BIGINT: the pass; NULL: no anchor, or outside the selected passes
--   layer BIGINT: the layer; NULL: the prologue or epilogue (unit), or no pass
--   name VARCHAR: the kernel name
--   short_name VARCHAR: its short name (terminal and Markdown tables show it instead of name)
--   kind VARCHAR: kernel, comm, memcpy or memset
--   launch_api VARCHAR: the launch calls' names, comma-separated
--   count BIGINT: its activities
--   launched BIGINT: those whose launch call is in the trace
--   sum_us DECIMAL(38,3): their device time
--   launch_calls BIGINT: distinct launch calls (a graph launch counts once in each row it launched)
--   launch_us DECIMAL(38,3): total duration of those calls, each counted once per row
--   delay_p50_us DECIMAL(23,3): median of start - launch call start
--   delay_p95_us DECIMAL(23,3): its 95th percentile
--   delay_max_us DECIMAL(23,3): its maximum
--   host_bound_idle_us DECIMAL(38,3): idle the device spent before these kernels' launch calls had started
--   other_idle_us DECIMAL(38,3): idle before these kernels after their launch calls had started
--   unknown_idle_us DECIMAL(38,3): idle before those of these kernels without a launch call
--   unit VARCHAR: prologue | layer | epilogue; NULL: no pass
WITH acts AS (
    SELECT k.run_id, k.seq, k.name, k.kind, k.start_ns, k.dur_ns, p.pass, p.layer, p.unit, c.call_seq, c.api, c.call_ns,
        c.call_dur_ns, g.host_bound_ns, g.other_ns, g.unknown_ns
    FROM kernels k
    LEFT JOIN _la_calls c USING (run_id, seq)
    LEFT JOIN _la_act g USING (run_id, seq)
    LEFT JOIN _assigned p USING (run_id, seq)
    WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm', 'memcpy', 'memset')
), firsts AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, pass, layer, unit, name, kind, call_seq ORDER BY seq) = 1 AS first_of_call
    FROM acts
), grouped AS (
    -- (list_distinct and a FILTER on the first row of each call: DISTINCT aggregates cost 4x as much here)
    SELECT run_id, pass, layer, unit, name, kind, nullif(array_to_string(list_sort(list_distinct(list(api))), ', '), '')
            AS launch_api,
        count(*) AS n, count(call_seq) AS launched, sum(dur_ns) AS dur_ns,
        count(*) FILTER (WHERE first_of_call AND call_seq IS NOT NULL) AS launch_calls,
        coalesce(sum(call_dur_ns) FILTER (WHERE first_of_call AND call_seq IS NOT NULL), 0) AS launch_ns,
        quantile_disc(start_ns - call_ns, 0.5) AS p50, quantile_disc(start_ns - call_ns, 0.95) AS p95,
        max(start_ns - call_ns) AS mx,
        coalesce(sum(host_bound_ns), 0) AS hb, coalesce(sum(other_ns), 0) AS other,
        coalesce(sum(unknown_ns), 0) AS unknown
    FROM firsts GROUP BY run_id, pass, layer, unit, name, kind
)
SELECT r.name AS run, g.pass, g.layer, g.name, coalesce(kn.short_name, g.name) AS short_name, g.kind, g.launch_api,
    g.n AS count, g.launched, us(g.dur_ns) AS sum_us, g.launch_calls, us(g.launch_ns) AS launch_us,
    us(g.p50) AS delay_p50_us, us(g.p95) AS delay_p95_us, us(g.mx) AS delay_max_us,
    us(g.hb) AS host_bound_idle_us, us(g.other) AS other_idle_us, us(g.unknown) AS unknown_idle_us, g.unit
FROM grouped g JOIN runs r USING (run_id) LEFT JOIN kernel_names kn ON kn.name = g.name
ORDER BY list_position($run_ids, g.run_id), g.pass NULLS FIRST, g.unit IS NOT DISTINCT FROM 'epilogue', g.layer NULLS FIRST,
    g.hb DESC, g.launch_ns DESC,
    g.name, g.kind;
