-- On-device per-core traces (runtime swimlanes, TraCR): the complete events of threads that are cores
-- are tasks on a device, not host events. Every named thread (lane) outside the AICPU view, scheduler and
-- orchestrator processes is classed:
--   core class: the first of the user's rules (`--core-rule`) its name matches, else the one core type its
--     name spells as a word of its own (no letter either side, digits may touch it): AICPU ('AICPU_0',
--     'AI_CPU 2'), AIV ('AIV12', 'AI Vector 3'), AIC ('AIC_3', 'AICore 5'), not 'MAIC_0' nor 'AICx 1'.
--   core id: the number after 'core' ('AIV0 (core24)' -> 24, 'core24 AIV' -> 24, 'AICore 5' -> 5), else
--     the number next to the type ('AIC_3', 'AIV12', '3_AIC'), else the name's only number ('cube lane 0').
--     Swimlane writers put the chip-wide core number in 'core<N>' and a per-type index before it, and the
--     chip-wide one is what events' own CoreId hints give (the simpler swimlane's AIV_24 .. AIV_37): so
--     'core<N>' is preferred, and an event's hint wins over its lane's number.
-- A lane is placed on its core unless that would merge or guess cores (then its events stay host events
-- and ingest_chrome_unplaced.sql counts them):
--   type:   its name spells two core types and no rule matched ('AIC/AIV 0'),
--   number: two 'core<N>' numbers, or no number while other names of its process share its class ('AIV'
--           beside 'AIV_0'); a process's one name of a class needs none (its id stays NULL),
--   shared: another name of its process gives the same class and id ('AIV_1' and 'AIV 1').
-- Threads of one name in one process (sub-lanes of one core) are one lane: they share its id.
-- Threads of AICPU view / scheduler / orchestrator processes are never cores: threads named like cores
-- there record dispatch and completion, not execution.
-- Inputs: tracks, trace_events of the runs $run_ids.
-- Parameters:
--   $run_ids INTEGER[]: the runs being ingested (a folder ingest's worker finishes a batch of runs at once)
--   $patterns VARCHAR[]: the user's rules' RE2 patterns on the thread name, in order
--   $classes VARCHAR[]: the core class each rule gives, in the order of $patterns
-- Output: TEMP _lanes, one row per named thread outside those processes (read by ingest_chrome_unplaced.sql,
--   dropped by ingest_chrome_finish.sql):
--   run_id INTEGER: the run
--   pid VARCHAR: the thread's process
--   tid VARCHAR: the thread
--   thread_name VARCHAR: its name
--   core_class VARCHAR: the class its name gives (NULL: not named like a core)
--   core_id INTEGER: the core number its name gives (NULL: none)
--   unplaced VARCHAR: why a thread named like a core is not placed (type, number or shared; NULL: placed,
--     or not named like a core)
-- Output: the events of placed lanes become kind 'task' (kernels, no longer host events), core_type the
--   class, core_id the event's own hint else the lane's; the threads' tracks rows record the class in
--   core_class (report cores counts cores without tasks from them).
CREATE OR REPLACE TEMP TABLE _lanes AS
WITH rules AS (
    SELECT unnest(range(len($patterns::VARCHAR[]))) AS ord, unnest($patterns::VARCHAR[]) AS pattern,
        unnest($classes::VARCHAR[]) AS core_class
), named AS (
    SELECT run_id, pid, tid, thread_name,
        list_filter([
            CASE WHEN regexp_matches(thread_name, '(?i)(^|[^a-z])ai[ _-]?cpu([^a-z]|$)') THEN 'AICPU' END,
            CASE WHEN regexp_matches(thread_name, '(?i)(^|[^a-z])ai(v|[ _-]?vector)([^a-z]|$)') THEN 'AIV' END,
            CASE WHEN regexp_matches(thread_name, '(?i)(^|[^a-z])ai(c|[ _-]?core)([^a-z]|$)') THEN 'AIC' END],
            lambda x: x IS NOT NULL) AS types,
        list_distinct(list_transform(
            regexp_extract_all(thread_name, '(?i)(?:^|[^a-z]|ai)core[ _#:-]?([0-9]+)', 1),
            lambda x: TRY_CAST(x AS INTEGER))) AS explicit,
        TRY_CAST(nullif(regexp_extract(thread_name,
            '(?i)(?:^|[^a-z])ai(?:[ _-]?cpu|v|[ _-]?vector|c|[ _-]?core)[ _#:.(\[-]*([0-9]+)', 1), '') AS INTEGER) AS after,
        TRY_CAST(nullif(regexp_extract(thread_name,
            '(?i)([0-9]+)[ _#:.)\]-]*ai(?:[ _-]?cpu|v|[ _-]?vector|c|[ _-]?core)(?:[^a-z]|$)', 1), '') AS INTEGER) AS before,
        regexp_extract_all(thread_name, '[0-9]+') AS numbers
    FROM tracks
    WHERE run_id IN (SELECT unnest($run_ids::INTEGER[])) AND thread_name IS NOT NULL
      AND NOT regexp_matches(coalesce(process_name, ''), '(?i)AICPU|sched|orch')
), ruled AS (
    SELECT n.run_id, n.pid, n.tid, arg_min(r.core_class, r.ord) AS core_class
    FROM named n JOIN rules r ON regexp_matches(n.thread_name, r.pattern)
    GROUP BY ALL
), classed AS (
    SELECT n.run_id, n.pid, n.tid, n.thread_name,
        coalesce(r.core_class, CASE WHEN len(n.types) = 1 THEN n.types[1] END) AS core_class,
        r.core_class IS NULL AND len(n.types) > 1 AS two_types,
        len(n.explicit) > 1 AS two_numbers,
        CASE WHEN len(n.explicit) = 1 THEN n.explicit[1]
             WHEN len(n.explicit) = 0 THEN coalesce(n.after, n.before,
                                                    CASE WHEN len(n.numbers) = 1 THEN TRY_CAST(n.numbers[1] AS INTEGER) END)
        END AS core_id
    FROM named n LEFT JOIN ruled r ON r.run_id = n.run_id AND r.pid = n.pid AND r.tid = n.tid
)
SELECT run_id, pid, tid, thread_name, core_class, core_id,
    CASE WHEN two_types THEN 'type'
         WHEN core_class IS NULL THEN NULL
         WHEN two_numbers THEN 'number'
         WHEN core_id IS NULL AND count(DISTINCT thread_name) OVER (PARTITION BY run_id, pid, core_class) > 1
             THEN 'number'
         WHEN core_id IS NOT NULL
              AND count(DISTINCT thread_name) OVER (PARTITION BY run_id, pid, core_class, core_id) > 1 THEN 'shared'
    END AS unplaced
FROM classed;
UPDATE trace_events SET kind = 'task', core_type = l.core_class, core_id = coalesce(trace_events.core_id, l.core_id)
FROM _lanes l
WHERE trace_events.run_id = l.run_id AND trace_events.ph = 'X' AND trace_events.kind IS NULL
  AND trace_events.pid = l.pid AND trace_events.tid = l.tid AND l.core_class IS NOT NULL AND l.unplaced IS NULL;
UPDATE tracks SET core_class = l.core_class FROM _lanes l
WHERE tracks.run_id = l.run_id AND tracks.pid = l.pid AND tracks.tid = l.tid
  AND l.core_class IS NOT NULL AND l.unplaced IS NULL;
