-- Advise rule slow-link: whether any communication op is matched across the runs (else no instance to align).
-- Inputs: _coll_match (collectives_match.sql).
-- Parameters: none.
-- Output: rows, exactly one:
--   matched BIGINT: the rows of _coll_match
SELECT count(*) AS matched FROM _coll_match;
