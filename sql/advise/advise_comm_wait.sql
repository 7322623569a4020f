-- Advise rule `exposed-comm`: the activities whose unions split a run's exposed communication into the time
-- it waited for the last rank to arrive and the time it moved data. Report breakdown's union arithmetic
-- (breakdown_union.sql) runs over them next, per unit:
--   unit 'wait': the computing activities, and each communication op cut at the latest start of the other
--     members of its instance (_coll_peers: [start, least(end, peer)), dropped when no peer came later);
--     busy - computing there is the exposed waiting;
--   unit 'known': the computing activities and the communication ops whose instance is matched, whole;
--     busy - computing there is the exposed communication that can be split (the rest is exposed
--     communication of ops no other rank in the selection matches).
-- An op whose instance has no match counts in neither. The waiting is at most the exposed time of the
-- matched ops, which is at most the exposed time: each adds communication to the same computing.
-- Inputs: _adv_act_run (breakdown_activity.sql's _bd_act over whole runs), _adv_act_stepped (the same, by
--   step: breakdown_steps.sql), _coll_peers (collectives_peers.sql).
-- Parameters: none.
-- Output: TEMP _bd_act, breakdown_union.sql's input: the activities above, by step for the runs with steps
--   and over the whole run for the others (their columns as breakdown_activity.sql makes them; unit 'wait'
--   or 'known').
-- Output: TEMP _bd_copy, empty (copies and fills do not count here), with breakdown_activity.sql's columns.
CREATE OR REPLACE TEMP TABLE _bd_act AS
WITH acts AS (
    SELECT * FROM _adv_act_stepped
    UNION ALL
    SELECT * FROM _adv_act_run WHERE run_id NOT IN (SELECT run_id FROM _adv_act_stepped)
), peered AS (
    SELECT a.run_id, a.seq, a.step, a.pass, a.layer, a.s, a.e, a.is_comm, p.peer_ns
    FROM acts a LEFT JOIN _coll_peers p ON a.is_comm AND p.run_id = a.run_id AND p.kseq = a.seq
)
SELECT run_id, seq, step, pass, layer, 'wait' AS unit, s, CASE WHEN is_comm THEN least(e, peer_ns) ELSE e END AS e,
    is_comm
FROM peered
WHERE NOT is_comm OR peer_ns > s
UNION ALL
SELECT run_id, seq, step, pass, layer, 'known', s, e, is_comm
FROM peered
WHERE NOT is_comm OR peer_ns IS NOT NULL;

CREATE OR REPLACE TEMP TABLE _bd_copy AS
SELECT run_id, seq, step, pass, layer, unit, s, e, 'memcpy' AS kind FROM _adv_act_run WHERE FALSE;
