-- Advise rule `roofline-gap`: hot kernels far below what the device can do with their work.
-- Trigger: a kernel name (computing: communication kernels are left out) whose kernels take at least $min_share_pct % of the run's kernel time, whose FLOPs or
-- bytes are known (kernel_work, from the trace's shapes) and whose device has peaks (engine/reports/peaks.py),
-- achieves less than $max_achieved_pct % of its attainable: report roofline's pct_peak, the kernels' ideal time
-- at the roofline (the longer of flops / peak FLOP/s and bytes / peak bytes/s: roofline_kernels.sql) over their
-- measured time. A name above 100 % (a wrong shape, dtype or peak, which report roofline flags) is left out.
-- Threshold source: 3 % of the kernel time makes a kernel hot (report kernels' top rows; below it a 3x speed-up
-- saves under 2 %); 30 % of attainable is well below what tuned GEMM, attention and elementwise kernels reach
-- (60-90 % in vendor libraries: docs/roofline.md), so a kernel under it has a real gap.
-- At stake: the rated kernels' time x (1 - achieved / attainable): the time a kernel at its roofline would save.
-- Inputs: _assigned (run_wide.sql: every kernel of the run), _rl_kernels (roofline_kernels.sql), kernels,
--   kernel_names, _adv_runs (advise_runs.sql).
-- Parameters:
--   $min_share_pct DOUBLE: the least share of the run's kernel time, %
--   $max_achieved_pct DOUBLE: the achieved share of attainable below which the rule fires, %
-- Output: TEMP _adv_findings (advise_runs.sql makes it), rows added: one finding per run and kernel name:
--   rule VARCHAR: roofline-gap
--   run_id INTEGER: the run
--   step BIGINT: NULL (every step)
--   layer BIGINT: NULL
--   kernel VARCHAR: the kernel's short name
--   at_stake_ns BIGINT: the time it would save at its roofline
--   base_ns BIGINT: the run's step time (_adv_runs.base_ns), the denominator of at_stake_pct
--   finding VARCHAR: one line
--   evidence VARCHAR: the figures and the report command
-- Output: TEMP _adv_roofline_hot, one row per run and hot kernel name (the rule's scope, for the notes):
--   run_id INTEGER: the run
--   name VARCHAR: the kernel name
--   rated BOOLEAN: its work and its device's peaks are known
--   ns BIGINT: its kernels' time
--   total_ns BIGINT: the run's kernel time
--   ns_rated BIGINT: the time of its kernels with work and peaks (rated)
--   t_ideal DOUBLE: their ideal time at the roofline, seconds
--   t_f DOUBLE: the FLOP terms of it, seconds
--   t_b DOUBLE: the byte terms of it, seconds
--   n BIGINT: its kernels
CREATE OR REPLACE TEMP TABLE _adv_roofline_hot AS
WITH k AS (
    SELECT a.run_id, kk.name, a.dur_ns, w.rated, w.t_flops, w.t_bytes
    FROM (SELECT DISTINCT run_id, seq, dur_ns, is_comm FROM _assigned) a
    JOIN kernels kk USING (run_id, seq)
    LEFT JOIN _rl_kernels w USING (run_id, seq)
    WHERE kk.kind = 'kernel' AND NOT a.is_comm
), totals AS (
    SELECT run_id, sum(dur_ns) AS total_ns FROM k GROUP BY run_id
)
SELECT k.run_id, k.name, bool_or(coalesce(k.rated, false)) AS rated,
    sum(k.dur_ns)::BIGINT AS ns, min(t.total_ns)::BIGINT AS total_ns,
    sum(k.dur_ns) FILTER (WHERE k.rated)::BIGINT AS ns_rated,
    sum(greatest(coalesce(k.t_flops, 0), coalesce(k.t_bytes, 0))) FILTER (WHERE k.rated) AS t_ideal,
    sum(coalesce(k.t_flops, 0)) FILTER (WHERE k.rated) AS t_f,
    sum(coalesce(k.t_bytes, 0)) FILTER (WHERE k.rated) AS t_b,
    count(*) AS n
FROM k JOIN totals t USING (run_id)
GROUP BY k.run_id, k.name
HAVING 100.0 * sum(k.dur_ns) >= $min_share_pct * min(t.total_ns);
INSERT INTO _adv_findings BY NAME
WITH g AS (
    SELECT h.*, 100 * h.t_ideal / (h.ns_rated * 1e-9) AS pct FROM _adv_roofline_hot h WHERE h.ns_rated > 0
)
SELECT 'roofline-gap' AS rule, g.run_id, NULL::BIGINT AS step, NULL::BIGINT AS layer,
    coalesce(kn.short_name, g.name) AS kernel,
    round(g.ns_rated - g.t_ideal * 1e9)::BIGINT AS at_stake_ns, r.base_ns,
    CAST(round(100.0 * g.ns / g.total_ns, 1)::DECIMAL(7, 1) AS VARCHAR) || ' % of the kernel time at '
        || CAST(round(g.pct, 1)::DECIMAL(7, 1) AS VARCHAR) || ' % of its '
        || CASE WHEN g.t_f >= g.t_b THEN 'compute' ELSE 'memory' END || ' roofline' AS finding,
    g.n || ' kernels, ' || CAST(us(g.ns) AS VARCHAR) || ' us; pct_peak ' || CAST(round(g.pct, 1)::DECIMAL(7, 1) AS VARCHAR)
        || ', bound ' || CASE WHEN g.t_f >= g.t_b THEN 'compute' ELSE 'memory' END
        || ': tracedb report roofline ' || r.cmd || ' --phase all --by kernel' AS evidence
FROM g
JOIN _adv_runs r USING (run_id)
LEFT JOIN kernel_names kn ON kn.name = g.name
WHERE g.pct < $max_achieved_pct AND g.pct <= 100;
