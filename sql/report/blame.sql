-- Report `blame`: which rank, layer and kernel (or host delay) made the other ranks of a job wait at their
-- collectives, and how long. Per collective instance whose members are on one clock (align_apply.sql),
-- the last member to arrive is the late rank, and waited = the sum over the members of (last arrival - their
-- arrival). The late rank's cause is looked for in its segment before the collective: its kernels since its
-- previous communication op ended (any group), each kernel matched with the same kernel (name, n-th of that
-- name in the segment) on the other members:
-- * a kernel's excess is its time minus the median time of the same kernel on the other members (a kernel the
--   others do not run: its whole time); only positive excesses are causes;
-- * the host's excess is the late rank's host-bound idle in the segment (its device idle until the next
--   kernel's launch call had started, the collective's own launch included: report launches' host-bound
--   idle) minus the others' median;
-- * pipeline stages (TEMP _pp_stage): the late rank is compared only with the members of its own stage, which
--   run the same model layers; an instance over several stages whose late rank has no member of its stage
--   (a pipeline send/receive, the embedding group of the first and last stage) is '(pipeline bubble)': the
--   others waited for the schedule (fill, drain, a stage with more work), which report pipeline shows;
-- * the instance's waited time is shared among the causes in proportion to their excess; an instance whose
--   late rank shows no positive excess is '(unexplained)' (the clocks, or work the trace does not show), or
--   '(no kernels)' when the late rank's trace has no kernel rows (communication ops only), or '(computing, from
--   step_trace_time)' when its folder has the profiler's step breakdown (step_times), which says how long it
--   computed (report breakdown, and the report's note).
-- Limits: compute that overlaps communication is counted as if it did not; when several ranks are late by
-- turns, each instance blames only its last arrival; the segment starts at the previous op of any group.
-- Inputs: _coll_aligned (align_apply.sql), _assigned (segment_assign.sql over every pass of the runs), _cats
--   (categories.sql: the runs' kernel names; a name it lacks is keyed by its text),
--   kernels, kernel_names, host_events, runs, step_times, TEMP _pp_stage(run_id INTEGER, pp_stage INTEGER, pp_stages
--   INTEGER) (the runs that are pipeline stages: tracedb.engine.segmentation.pipeline).
-- Parameters:
--   $run_ids INTEGER[]: the runs: rows of equal waited time come in their order
--   $on_clock INTEGER[]: the runs on one clock (engine/jobs/align.py): instances with a member off it are skipped
--   $by VARCHAR: 'kernel' (a row per late rank, pass, layer and cause) | 'layer' (per layer and late rank)
--   $top INTEGER: rows kept, most waited first; the others are summed in one last row (0: every row)
-- Output: TEMP _bl_rows, one row per instance and cause (scratch for the statement below)
-- Output: rows, by waited time, largest first:
--   run VARCHAR: the late rank's run ('(N more)' on the last row for --by layer)
--   rank INTEGER: its rank
--   pass BIGINT: the pass of the cause (--by kernel); NULL for --by layer (every pass)
--   layer BIGINT: the layer of the cause (a host delay: of the collective); NULL: the prologue or epilogue
--     (unit), or outside every pass
--   kernel VARCHAR: the cause: a kernel's short name, '(host)', '(pipeline bubble)', '(unexplained)', '(computing,
--     from step_trace_time)' or '(no kernels)'; NULL for --by layer; '(N more)' on the last row, which sums the N rows
--     past --top (its instances: the distinct instances of those rows; its rank, pass, layer and unit NULL; its run
--     NULL, or '(N more)' for --by layer)
--   name VARCHAR: the cause's kernel name: a row per kernel name, so kernels that share a short name are rows of their
--     own (terminal and Markdown tables show kernel instead, told apart); NULL for the other causes and --by layer
--   excess_us DECIMAL(38,3): the cause's excess, summed over the instances
--   waited_us DECIMAL(23,3): the other members' waiting it is charged with, summed over the instances (to the
--     ns: the shares of an instance are fractions of a ns)
--   instances BIGINT: collective instances charged
--   unit VARCHAR: prologue | layer | epilogue of the cause; NULL outside every pass
CREATE OR REPLACE TEMP TABLE _bl_rows AS
WITH groups AS (
    -- each process group by a number, and below each kernel name: the windows that number a kernel within its
    -- segment and find the gaps before it partition by them; numbers in place of the two texts took this
    -- statement from 4.3 s to 3.7 s on a 1,024-rank job (1.4 M kernels in segments)
    SELECT grp, row_number() OVER (ORDER BY grp) AS gid FROM (SELECT DISTINCT grp FROM _coll_aligned)
), names AS (
    -- (a name _cats lacks keeps its text as its key: nname)
    SELECT name, row_number() OVER (ORDER BY name) AS nid FROM (SELECT DISTINCT name FROM _cats)
), staged AS (
    SELECT c.* REPLACE (g.gid AS grp), coalesce(p.pp_stage, -1) AS pp_stage
    FROM _coll_aligned c JOIN groups g ON g.grp IS NOT DISTINCT FROM c.grp LEFT JOIN _pp_stage p USING (run_id)
), late AS (
    -- the late member and the waiting of the others, per instance whose members are on one clock
    SELECT grp, mkey, arg_max(run_id, (a_start, run_id)) AS late_run,
        arg_max(pp_stage, (a_start, run_id)) AS late_stage, list(pp_stage) AS stages,
        -- HUGEINT: 8 members x an epoch start in ns (1.76e18) passes INT64
        (count(*)::HUGEINT * max(a_start) - sum(a_start))::BIGINT AS waited_ns
    FROM staged
    GROUP BY grp, mkey
    HAVING count(DISTINCT run_id) >= 2 AND bool_and(consistent) AND bool_and(list_contains($on_clock, run_id))
       AND max(a_start) > min(a_start)
), inst AS (
    -- a pipeline send/receive, or a collective over several stages, whose late member has no member of its
    -- own stage to be compared with: the others waited for the schedule (its fill and drain, or a stage with
    -- more work), not for a kernel slower than the same kernel elsewhere
    SELECT grp, mkey, late_run, late_stage, waited_ns,
        len(list_filter(stages, lambda x: x = late_stage)) = 1 AND len(list_distinct(stages)) > 1 AS bubble
    FROM late
), ops AS (
    -- each member's op, and where its segment starts: the end of its previous communication op
    SELECT c.grp, c.mkey, c.run_id, c.pp_stage, c.kseq, c.start_ns,
        lag(c.end_ns) OVER (PARTITION BY c.run_id ORDER BY c.start_ns, c.kseq) AS seg_start
    FROM staged c
), seg AS (
    -- the compute kernels of each op's segment: each kernel meets the first op that starts after it
    SELECT o.grp, o.mkey, o.run_id, o.pp_stage, a.seq, a.start_ns, a.end_ns, a.dur_ns, a.pass, a.layer, a.unit, k.name,
        nm.nid, CASE WHEN nm.nid IS NULL THEN k.name END AS nname, k.correlation_id
    FROM _assigned a
    ASOF JOIN ops o ON o.run_id = a.run_id AND a.start_ns < o.start_ns
    JOIN kernels k ON k.run_id = a.run_id AND k.seq = a.seq
    LEFT JOIN names nm ON nm.name = k.name
    WHERE NOT a.is_comm AND a.start_ns >= coalesce(o.seg_start, a.start_ns)
), numbered AS (
    SELECT s.*, row_number() OVER (PARTITION BY s.grp, s.mkey, s.run_id, s.nid, s.nname ORDER BY s.start_ns, s.seq) AS nth
    FROM seg s SEMI JOIN inst i USING (grp, mkey)
), others AS (
    SELECT n.grp, n.mkey, n.nid, n.nname, n.nth, median(n.dur_ns) AS med_ns
    FROM numbered n JOIN inst i USING (grp, mkey)
    -- the same kernel on the members of the late rank's pipeline stage only: another stage runs other layers
    WHERE n.run_id <> i.late_run AND n.pp_stage = i.late_stage AND NOT i.bubble
    GROUP BY ALL
), kernel_excess AS (
    SELECT n.grp, n.mkey, n.run_id, n.pass, n.layer, n.unit, n.name AS cause,
        (n.dur_ns - coalesce(o.med_ns, 0))::BIGINT AS excess_ns
    FROM numbered n JOIN inst i ON i.grp = n.grp AND i.mkey = n.mkey AND i.late_run = n.run_id AND NOT i.bubble
    LEFT JOIN others o ON o.grp = n.grp AND o.mkey = n.mkey AND o.nid IS NOT DISTINCT FROM n.nid
        AND o.nname IS NOT DISTINCT FROM n.nname AND o.nth = n.nth AND n.name IS NOT NULL
), timed AS (
    -- the segment's kernels and the op itself, with their launch calls: the host-bound part of each idle gap
    SELECT n.grp, n.mkey, n.run_id, n.start_ns, n.end_ns, n.seq, n.correlation_id FROM numbered n
    UNION ALL
    SELECT o.grp, o.mkey, o.run_id, o.start_ns, o.start_ns, o.kseq, k.correlation_id
    FROM ops o SEMI JOIN inst i USING (grp, mkey)
    JOIN kernels k ON k.run_id = o.run_id AND k.seq = o.kseq
), gaps AS (
    SELECT t.grp, t.mkey, t.run_id, t.start_ns,
        greatest(t.start_ns - coalesce(max(t.end_ns) OVER w, o.seg_start, t.start_ns), 0) AS gap_ns,
        o.seg_start, max(t.end_ns) OVER w AS prev_end,
        l.call_ns
    FROM timed t JOIN ops o ON o.grp = t.grp AND o.mkey = t.mkey AND o.run_id = t.run_id
    LEFT JOIN launches_of('timed') l ON l.run_id = t.run_id AND l.correlation_id = t.correlation_id
    WINDOW w AS (PARTITION BY t.grp, t.mkey, t.run_id ORDER BY t.start_ns, t.seq
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), host AS (
    SELECT grp, mkey, run_id,
        sum(CASE WHEN call_ns IS NOT NULL THEN least(greatest(call_ns - coalesce(prev_end, seg_start, start_ns), 0), gap_ns)
                 ELSE 0 END) AS hb_ns
    FROM gaps GROUP BY ALL
), host_excess AS (
    SELECT i.grp, i.mkey, i.late_run AS run_id,
        (max(h.hb_ns) FILTER (WHERE h.run_id = i.late_run)
         - coalesce(median(h.hb_ns) FILTER (WHERE h.run_id <> i.late_run AND coalesce(
               (SELECT p.pp_stage FROM _pp_stage p WHERE p.run_id = h.run_id), -1) = i.late_stage), 0))::BIGINT AS excess_ns
    FROM inst i JOIN host h USING (grp, mkey)
    GROUP BY ALL
), op_units AS (
    -- where a host delay is charged: the late rank's collective itself
    SELECT i.grp, i.mkey, a.pass, a.layer, a.unit
    FROM inst i JOIN ops o ON o.grp = i.grp AND o.mkey = i.mkey AND o.run_id = i.late_run
    LEFT JOIN _assigned a ON a.run_id = o.run_id AND a.seq = o.kseq
), causes AS (
    SELECT grp, mkey, run_id, pass, layer, unit, cause, excess_ns FROM kernel_excess WHERE excess_ns > 0
    UNION ALL
    SELECT h.grp, h.mkey, h.run_id, u.pass, u.layer, u.unit, '(host)', h.excess_ns
    FROM host_excess h JOIN op_units u USING (grp, mkey) JOIN inst i USING (grp, mkey) WHERE h.excess_ns > 0 AND NOT i.bubble
), shared AS (
    SELECT c.*, i.waited_ns * c.excess_ns / sum(c.excess_ns) OVER (PARTITION BY c.grp, c.mkey) AS waited_share
    FROM causes c JOIN inst i USING (grp, mkey)
)
SELECT grp, mkey, run_id, pass, layer, unit, cause, excess_ns, waited_share AS waited_ns FROM shared
UNION ALL
SELECT i.grp, i.mkey, i.late_run, u.pass, u.layer, u.unit,
    CASE WHEN i.bubble THEN '(pipeline bubble)'
         WHEN EXISTS (SELECT 1 FROM _assigned a WHERE a.run_id = i.late_run) THEN '(unexplained)'
         WHEN EXISTS (SELECT 1 FROM step_times st WHERE st.run_id = i.late_run) THEN '(computing, from step_trace_time)'
         ELSE '(no kernels)' END,
    0, i.waited_ns
FROM inst i JOIN op_units u USING (grp, mkey)
WHERE NOT EXISTS (SELECT 1 FROM causes c WHERE c.grp = i.grp AND c.mkey = i.mkey);
WITH keyed AS (
    SELECT b.*, r.name AS run, r.rank, CASE WHEN $by = 'kernel' THEN b.pass END AS pass_k,
        -- a row per cause, a kernel cause by its name; shown by its short name
        CASE WHEN $by = 'kernel' THEN b.cause END AS cause_k,
        CASE WHEN $by = 'kernel' THEN coalesce(kn.short_name, b.cause) END AS kernel_k,
        CASE WHEN $by = 'kernel' THEN kn.name END AS name_k
    FROM _bl_rows b JOIN runs r USING (run_id) LEFT JOIN kernel_names kn ON kn.name = b.cause
), grouped AS (
    SELECT run_id, run, rank, pass_k, layer, cause_k, kernel_k, name_k, unit, sum(excess_ns) AS excess_ns,
        sum(waited_ns) AS waited_ns, count(DISTINCT (grp, mkey)) AS instances
    FROM keyed GROUP BY run_id, run, rank, pass_k, layer, cause_k, kernel_k, name_k, unit
), ranked AS (
    SELECT *, row_number() OVER (ORDER BY waited_ns DESC, list_position($run_ids, run_id), pass_k, layer,
                                          kernel_k, cause_k, unit) AS pos
    FROM grouped
), shown AS (
    SELECT * FROM ranked WHERE $top = 0 OR pos <= $top
), rest AS (
    -- the rows past $top as one; its instances counted once each, as a row's are
    SELECT count(*) AS more, sum(excess_ns) AS excess_ns, sum(waited_ns) AS waited_ns,
        (SELECT count(DISTINCT (k.grp, k.mkey)) FROM keyed k
         WHERE NOT EXISTS (SELECT 1 FROM shown s
                           WHERE s.run_id = k.run_id AND s.pass_k IS NOT DISTINCT FROM k.pass_k
                             AND s.layer IS NOT DISTINCT FROM k.layer AND s.cause_k IS NOT DISTINCT FROM k.cause_k
                             AND s.unit IS NOT DISTINCT FROM k.unit)) AS instances
    FROM ranked WHERE $top > 0 AND pos > $top
    HAVING count(*) > 0
)
SELECT run, rank, pass, layer, kernel, name, us(excess_ns) AS excess_us, us(round(waited_ns)::BIGINT) AS waited_us,
    instances, unit
FROM (SELECT pos, run, rank, pass_k AS pass, layer, kernel_k AS kernel, name_k AS name, excess_ns, waited_ns,
          instances, unit
      FROM shown
      UNION ALL
      SELECT $top + 1, CASE WHEN $by = 'layer' THEN label END, NULL, NULL, NULL,
          CASE WHEN $by = 'kernel' THEN label END, NULL, excess_ns, waited_ns, instances, NULL
      FROM (SELECT *, '(' || format('{:,}', more) || ' more)' AS label FROM rest))
ORDER BY pos;
