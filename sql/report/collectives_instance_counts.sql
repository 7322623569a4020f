-- The instances of collectives whose members disagree on the op or its size, all instances, and those found on
-- one rank only: the notes of report collectives.
-- Inputs: TEMP _coll_match.
-- Parameters: none.
-- Output: rows, one: the inconsistent instances, every instance, the instances of one member (each BIGINT).
SELECT count(*) FILTER (WHERE NOT ok), count(*), count(*) FILTER (WHERE members < 2) FROM
(SELECT grp, mkey, bool_and(consistent) AS ok, max(members) AS members FROM _coll_match
GROUP BY ALL);
