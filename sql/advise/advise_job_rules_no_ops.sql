-- Advise: no communication op of the runs could be read (the rules over them then say why): _coll_ops empty.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _coll_ops, empty, with collectives_ops.sql's first columns (run_id, kseq, op, grp, start_ns,
--   end_ns).
CREATE OR REPLACE TEMP TABLE _coll_ops (run_id INTEGER, kseq BIGINT, op VARCHAR, grp VARCHAR,
start_ns BIGINT, end_ns BIGINT);
