-- What alignment leaves: the largest spread of a collective's aligned ends over its members, and how many
-- instances alignment used (alignable ones: collectives_match.sql).
-- Inputs: _coll_aligned (align_apply.sql).
-- Parameters: none.
-- Output: one row:
--   residual_ns BIGINT: max over instances of (latest aligned end - earliest aligned end); NULL without any
--   instances BIGINT: instances used
SELECT max(spread)::BIGINT AS residual_ns, count(*) AS instances
FROM (SELECT max(a_end) - min(a_end) AS spread FROM _coll_aligned
      WHERE alignable GROUP BY grp, mkey);
