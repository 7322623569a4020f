-- Stage 2 of segmentation: group anchors into passes. Boundaries come from the trace first (gaps between
-- anchors), counts only subdivide and check within them, so a capture that starts or ends mid-pass
-- never mixes two passes.
-- 1. Gaps: gap_i = start(anchor_i) - end(anchor_i-1), per run (lag); gaps under 1 us count as 1 us, so
--    back-to-back anchors on a busy stream do not turn noise into a ratio.
-- 1b. Local breaks: a gap larger than both gaps beside it and at least 2 x $min_jump x the smaller one
--    (a step's end between a prefill's layers and a decode's is 6-36x the decode side's gap). In a
--    capture of steps of different lengths (a prefill whose layers take milliseconds, then decode steps of
--    a fraction of that) no gap stands out over the whole run, but a step's end stands out from the gaps
--    beside it. A hiccup inside a pass stands out from its neighbours too, less: the local maxima are
--    ranked by how many times the smaller neighbour they are, and taking the k first is a candidate when
--    the k-th is $min_jump x the next one, as in step 2. Such a candidate is taken only when it leaves 3 in
--    4 anchors or more in regular passes, and only in a run whose steps the trace does not mark.
-- 2. Break candidates: sort a run's gaps, largest first; taking the k largest as breaks is a candidate
--    when the k-th is >= $min_jump x the (k+1)-th (a clear jump) and the passes would average >= 2
--    anchors (k <= (gaps - 1) / 2), in the run and in each step the trace marks. "No break" is a
--    candidate with jump $min_jump. Of the eight largest jumps, the one whose passes are most regular
--    wins: with $per_pass, the most anchors in passes whose count is a multiple of it; without, the most
--    anchors in passes of the most common count (two or more such passes); anchors, not passes, so cutting
--    finer never scores higher. Ties: the larger jump. So one hiccup inside a pass, or an uneven last
--    break, does not decide.
-- 3. Counts: a gap group with more than $per_pass anchors is cut into passes of $per_pass; the cuts start
--    at offset o (0 <= o < per_pass: a leading fragment of o anchors) chosen so that the smallest gap at
--    a cut is the largest (ties: the smaller o). A group with fewer anchors is one partial pass.
-- 0. Forced breaks (anchor_breaks.sql: a step boundary, or work of another phase or a pipeline
--    send/receive between two anchors) always split and take no part in steps 1-2; with $gap_factor, the
--    user's explicit rule, there are none.
-- Partial passes are kept, never merged or dropped.
-- Inputs: _anchors (segment_anchors.sql, or anchor_candidates.sql with the candidate index as run_id;
--   anchor_breaks.sql added forced, after_optimizer, step_break, replay_break, kind_break, module_break and
--   joined).
-- Parameters:
--   $per_pass INTEGER: anchors per pass = layers x blocks per layer; NULL when unknown
--   $gap_factor DOUBLE: NULL: find the break gaps; else a break where gap > gap_factor x median gap, the
--     user's explicit rule
--   $min_jump DOUBLE: how many times larger than every gap inside a pass a break gap must be
-- Output: TEMP _anchor_pass, one row per anchor:
--   run_id INTEGER: the run (_anchors.run_id)
--   seq BIGINT: the anchor kernel (kernels.seq)
--   start_ns BIGINT: its start
--   end_ns BIGINT: its end
--   idx BIGINT: its index in the run (_anchors.idx)
--   pass BIGINT: its pass, from 0 per run in time order
--   grp HUGEINT: its gap group (the anchors between two break gaps), from 0
--   offset_o BIGINT: the offset o of the count cuts in its group (step 3; 0 when the group is not cut)
--   gap_ns BIGINT: gap to the previous anchor (step 1); NULL for the run's first anchor
--   k BIGINT: index of the anchor within its pass
--   forced BOOLEAN: a forced break precedes it (step 0)
--   after_optimizer BOOLEAN: optimizer work precedes it (anchor_breaks.sql)
--   block BIGINT: k, except in a leading fragment (the run's first pass, short of the expected count,
--     when more passes follow): a capture that starts mid-pass holds that pass's last layers, so its
--     blocks count from expected - anchors (the last 10 of 24 layers are layers 14..23)
-- Output: TEMP _passes, one row per (run, pass):
--   run_id INTEGER: the run
--   pass BIGINT: the pass, from 0 per run in time order
--   anchors BIGINT: its anchors
--   first_start BIGINT: start of its first anchor
--   last_end BIGINT: the latest end of its anchors
--   expected BIGINT: $per_pass, or the most common anchor count of the run's passes (ties: the larger)
--   partial BOOLEAN: anchors <> expected
--   grp HUGEINT: its gap group
--   block_base BIGINT: the first anchor's block (> 0 in a leading fragment)
-- Output: TEMP _pass_split, one row per run, for the notes that explain the split:
--   run_id INTEGER: the run
--   rule VARCHAR: 'gaps' (breaks found), 'local' (breaks at local maxima, step 1b), 'none' (no gap stands
--     out), 'factor' (explicit $gap_factor)
--   threshold_ns BIGINT: gaps at or above it are breaks; for 'local', -k: the k local maxima ranked first
--   inside_max_ns BIGINT: the largest gap not taken as a break
--   breaks BIGINT: break gaps taken (steps 1-2)
--   forced_breaks BIGINT: forced breaks for other work between anchors (step 0)
--   step_breaks BIGINT: forced breaks at step boundaries (step 0)
--   replay_breaks BIGINT: forced breaks between two graph replays that each hold whole passes (step 0)
--   kind_breaks BIGINT: forced breaks where the anchor changes between kernels that take turns pass by pass
--   module_breaks BIGINT: forced breaks where the model's blocks are called again (anchor_breaks.sql)
-- Output: TEMP _pass_groups, one row per gap group, for the notes that explain the split:
--   run_id INTEGER: the run
--   grp HUGEINT: the gap group
--   anchors BIGINT: its anchors
--   offset_o BIGINT: the offset o of its count cuts (0 when not cut)
--   first_pass BIGINT: its first pass
--   passes BIGINT: its passes
--   cut_min_ns BIGINT: the smallest gap at a count cut inside the group; NULL without cuts
--   gap_before_ns BIGINT: the gap before its first anchor; NULL for the run's first group
-- TEMP _anchor_gaps, _free_gaps, _break_candidates and _anchor_grp are scratch, dropped at the end: no other file
-- reads them, and a kept segmentation would hold them for nothing (_anchor_gaps and _anchor_grp: 37 columns an
-- anchor, 1.2 M rows on a 1,024-rank job).
CREATE OR REPLACE TEMP TABLE _anchor_gaps AS
WITH gaps AS (
    SELECT * REPLACE (forced AND $gap_factor IS NULL AS forced, step_break AND $gap_factor IS NULL AS step_break,
        replay_break AND $gap_factor IS NULL AS replay_break, kind_break AND $gap_factor IS NULL AS kind_break,
        module_break AND $gap_factor IS NULL AS module_break, joined AND $gap_factor IS NULL AS joined),
        CASE WHEN idx > 0 THEN greatest(start_ns - lag(end_ns) OVER (PARTITION BY run_id ORDER BY idx), 1000) END AS gap_ns
    FROM _anchors
), beside AS (
    SELECT *, lag(gap_ns) OVER w AS prev_gap, lead(gap_ns) OVER w AS next_gap
    FROM gaps WINDOW w AS (PARTITION BY run_id ORDER BY idx)
), marked AS (
    -- local_max (step 1b): a gap larger than both gaps beside it and at least 2 x $min_jump x the smaller one,
    -- local_ratio: how many times the smaller one it is
    SELECT * EXCLUDE (prev_gap, next_gap),
        coalesce(gap_ns > coalesce(prev_gap, 0) AND gap_ns > coalesce(next_gap, 0)
                 AND gap_ns >= 2 * $min_jump * least(coalesce(prev_gap, next_gap), coalesce(next_gap, prev_gap)),
                 false) AS local_max,
        gap_ns / least(coalesce(prev_gap, next_gap), coalesce(next_gap, prev_gap)) AS local_ratio
    FROM beside
)
-- local_rank: the local maxima of a run (forced breaks aside) ranked by local_ratio, largest first, and
-- step_grp: the marked step (steps marked so far), for step 2's average
SELECT * REPLACE (CASE WHEN local_max THEN local_ratio END AS local_ratio),
    CASE WHEN local_max AND NOT forced AND NOT joined THEN row_number() OVER (
        PARTITION BY run_id, local_max AND NOT forced AND NOT joined ORDER BY local_ratio DESC, idx) END AS local_rank,
    (sum(step_break::INTEGER) OVER (PARTITION BY run_id ORDER BY idx))::BIGINT AS step_grp
FROM marked;
-- the gaps that steps 1-2 rank: forced breaks split anyway, and a gap inside one walk through the model's
-- blocks (joined) is never a break
CREATE OR REPLACE TEMP VIEW _free_gaps AS SELECT * FROM _anchor_gaps WHERE NOT forced AND NOT joined;

CREATE OR REPLACE TEMP TABLE _break_candidates AS
WITH ranked AS (
    SELECT run_id, gap_ns, row_number() OVER w AS r, lead(gap_ns) OVER w AS next_gap,
        count(*) OVER (PARTITION BY run_id) AS n_gaps
    FROM _free_gaps WHERE gap_ns IS NOT NULL
    WINDOW w AS (PARTITION BY run_id ORDER BY gap_ns DESC)
), jumps AS (
    SELECT run_id, gap_ns AS threshold, next_gap AS inside_max, gap_ns / next_gap AS jump
    FROM ranked
    WHERE $gap_factor IS NULL AND next_gap IS NOT NULL AND r <= (n_gaps - 1) // 2 AND gap_ns >= $min_jump * next_gap
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY gap_ns / next_gap DESC, gap_ns DESC) <= 8
), crowded AS (
    -- the average of 2 anchors a pass holds in each marked step too: a prefill's layers (milliseconds apart,
    -- the capture cut 10 of them) and a decode step's (a fraction of a millisecond) in one run make every gap
    -- of the prefill stand out over the run, and would make each of its layers a pass
    SELECT j.run_id, j.threshold FROM jumps j JOIN _free_gaps g USING (run_id) WHERE g.gap_ns IS NOT NULL
    GROUP BY j.run_id, j.threshold, g.step_grp
    HAVING count(*) FILTER (WHERE g.gap_ns >= j.threshold) > (count(*) - 1) // 2
), med AS (
    SELECT run_id, median(gap_ns) AS med, max(gap_ns) AS top FROM _free_gaps GROUP BY run_id
)
SELECT run_id, 'gaps' AS rule, threshold, inside_max, jump FROM jumps ANTI JOIN crowded USING (run_id, threshold)
UNION ALL
-- local breaks (step 1b): the k local maxima of largest ratio, where the k-th is >= $min_jump x the next
-- one's ratio (or is the last), as the threshold -k
SELECT run_id, 'local', -local_rank, NULL, coalesce(local_ratio / next_ratio, $min_jump)
FROM (SELECT *, lead(local_ratio) OVER (PARTITION BY run_id ORDER BY local_rank) AS next_ratio
      FROM _free_gaps WHERE local_rank IS NOT NULL)
-- not in a run whose steps the trace marks (annotations, Step Id, graph replays): there a step's passes are
-- split at those marks, and a gap standing out inside a step is no step's end (a change of kind of step
-- marks no step: decode steps after a prefill still need their ends found)
WHERE $gap_factor IS NULL AND (next_ratio IS NULL OR local_ratio >= $min_jump * next_ratio)
  AND run_id NOT IN (SELECT run_id FROM _anchor_gaps WHERE step_break AND NOT kind_break)
QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY coalesce(local_ratio / next_ratio, $min_jump) DESC) <= 8
UNION ALL
-- no break: the threshold lies above every gap
SELECT run_id, CASE WHEN $gap_factor IS NULL THEN 'none' ELSE 'factor' END,
    CASE WHEN $gap_factor IS NULL THEN coalesce(top, 0) + 1
         ELSE floor($gap_factor * greatest(coalesce(med, 0), 1))::BIGINT + 1 END,
    NULL, $min_jump
FROM med;

CREATE OR REPLACE TEMP TABLE _anchor_grp AS
WITH grouped AS (
    SELECT c.run_id, c.threshold, a.seq, a.start_ns, a.end_ns, a.idx, a.gap_ns, a.forced, a.after_optimizer, a.step_break,
        a.replay_break, a.kind_break, a.module_break, a.joined,
        sum((a.gap_ns IS NULL OR NOT a.joined AND CASE WHEN c.threshold < 0 THEN coalesce(a.local_rank <= -c.threshold, false)
                                                       ELSE a.gap_ns >= c.threshold END
             OR a.forced)::INTEGER) OVER (PARTITION BY c.run_id, c.threshold ORDER BY a.idx) - 1 AS grp,
        a.gap_ns IS NOT NULL AND NOT a.forced AND NOT a.joined
            AND CASE WHEN c.threshold < 0 THEN coalesce(a.local_rank <= -c.threshold, false)
                     ELSE a.gap_ns >= c.threshold END AS brk
    FROM _break_candidates c JOIN _anchor_gaps a USING (run_id)
), sizes AS (
    SELECT run_id, threshold, grp, count(*) AS n FROM grouped GROUP BY ALL
), modal AS (
    SELECT run_id, threshold, n, count(*) AS k FROM sizes GROUP BY ALL
), score AS (
    -- anchors in regular passes: counting anchors, not passes, so cutting passes finer never scores higher
    SELECT run_id, threshold,
        CASE WHEN $per_pass IS NOT NULL
             THEN (SELECT sum(CASE WHEN s.n % $per_pass = 0 THEN s.n ELSE 0 END) FROM sizes s
                   WHERE s.run_id = m.run_id AND s.threshold = m.threshold)
             ELSE coalesce(max(n * k) FILTER (WHERE k >= 2), 0) END AS regular,
        sum(n * k) AS total
    FROM modal m GROUP BY run_id, threshold
), chosen AS (
    -- local breaks only when they leave at least 3 in 4 anchors in regular passes: a hiccup or two inside a
    -- pass stand out from their neighbours too, and leave passes of every length
    SELECT c.run_id, arg_max(c.threshold, (s.regular, c.jump, c.threshold)) AS threshold
    FROM _break_candidates c JOIN score s USING (run_id, threshold)
    WHERE c.threshold >= 0 OR 4 * s.regular >= 3 * s.total
    GROUP BY c.run_id
)
SELECT g.run_id, g.threshold, g.seq, g.start_ns, g.end_ns, g.idx, g.gap_ns, g.forced, g.after_optimizer, g.step_break,
    g.replay_break, g.kind_break, g.module_break, g.joined, g.brk, g.grp,
    g.idx - min(g.idx) OVER (PARTITION BY g.run_id, g.grp) AS j,
    count(*) OVER (PARTITION BY g.run_id, g.grp) AS grp_n
FROM grouped g JOIN chosen USING (run_id, threshold);

CREATE OR REPLACE TEMP TABLE _pass_split AS
SELECT a.run_id, c.rule, a.threshold AS threshold_ns,
    max(a.gap_ns) FILTER (WHERE NOT a.brk AND NOT a.forced) AS inside_max_ns,
    count(*) FILTER (WHERE a.brk) AS breaks,
    count(*) FILTER (WHERE a.forced AND NOT a.step_break AND NOT a.module_break) AS forced_breaks,
    count(*) FILTER (WHERE a.step_break AND NOT a.replay_break AND NOT a.kind_break) AS step_breaks,
    count(*) FILTER (WHERE a.replay_break) AS replay_breaks,
    count(*) FILTER (WHERE a.kind_break) AS kind_breaks,
    count(*) FILTER (WHERE a.module_break) AS module_breaks
FROM _anchor_grp a JOIN _break_candidates c USING (run_id, threshold)
GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE _anchor_pass AS
WITH offsets AS (
    -- candidate offsets of the count cuts, for groups holding more than one pass worth of anchors
    SELECT DISTINCT run_id, grp, unnest(range($per_pass)) AS o FROM _anchor_grp
    WHERE $per_pass IS NOT NULL AND grp_n > $per_pass
), scored AS (
    SELECT o.run_id, o.grp, o.o, min(a.gap_ns) AS cut_min
    FROM offsets o JOIN _anchor_grp a USING (run_id, grp)
    WHERE a.j > 0 AND (a.j - o.o) % $per_pass = 0
    GROUP BY ALL
), best AS (
    SELECT run_id, grp, arg_max(o, (cut_min, -o)) AS o FROM scored GROUP BY ALL
), sub AS (
    SELECT a.*, coalesce(b.o, 0) AS o,
        CASE WHEN b.o IS NULL THEN 0 WHEN b.o = 0 THEN a.j // $per_pass
             ELSE (a.j - b.o + $per_pass) // $per_pass END AS sub
    FROM _anchor_grp a LEFT JOIN best b USING (run_id, grp)
), numbered AS (
    SELECT *, dense_rank() OVER (PARTITION BY run_id ORDER BY grp, sub) - 1 AS pass FROM sub
), counted AS (
    SELECT *, idx - min(idx) OVER (PARTITION BY run_id, pass) AS k, count(*) OVER (PARTITION BY run_id, pass) AS n_in_pass,
        max(pass) OVER (PARTITION BY run_id) AS last_pass
    FROM numbered
), freq AS (
    SELECT run_id, n, count(*) AS passes FROM (SELECT run_id, pass, count(*) AS n FROM numbered GROUP BY ALL) GROUP BY ALL
), expected AS (
    -- the same rule as _passes.expected below
    SELECT run_id, coalesce($per_pass, arg_max(n, passes * 1000000000 + n)) AS expected FROM freq GROUP BY run_id
)
-- a leading fragment holds a pass's last layers: its blocks are numbered from expected - anchors
SELECT run_id, seq, start_ns, end_ns, idx, pass, grp, o AS offset_o, gap_ns, k, forced, after_optimizer,
    k + CASE WHEN pass = 0 AND last_pass > 0 AND n_in_pass < expected THEN expected - n_in_pass ELSE 0 END AS block
FROM counted JOIN expected USING (run_id);

CREATE OR REPLACE TEMP TABLE _pass_groups AS
SELECT run_id, grp, count(*) AS anchors, any_value(offset_o) AS offset_o, min(pass) AS first_pass,
    count(DISTINCT pass) AS passes,
    min(gap_ns) FILTER (WHERE k = 0 AND idx > min_idx) AS cut_min_ns,
    max(gap_ns) FILTER (WHERE idx = min_idx) AS gap_before_ns
FROM (SELECT *, min(idx) OVER (PARTITION BY run_id, grp) AS min_idx FROM _anchor_pass)
GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE _passes AS
WITH p AS (
    SELECT run_id, pass, any_value(grp) AS grp, count(*) AS anchors, min(start_ns) AS first_start,
        max(end_ns) AS last_end, min(block) AS block_base
    FROM _anchor_pass GROUP BY ALL
), freq AS (
    SELECT run_id, anchors, count(*) AS n FROM p GROUP BY ALL
), expected AS (
    SELECT run_id, coalesce($per_pass, arg_max(anchors, n * 1000000000 + anchors)) AS expected
    FROM freq GROUP BY run_id
)
SELECT p.run_id, p.pass, p.anchors, p.first_start, p.last_end, e.expected, p.anchors <> e.expected AS partial, p.grp,
    p.block_base
FROM p JOIN expected e USING (run_id);

DROP VIEW _free_gaps;
DROP TABLE _anchor_gaps;
DROP TABLE _anchor_grp;
DROP TABLE _break_candidates;
