-- The kernel names of pipeline sends and receives, and of a forward's ends (embedding, sampling): both
-- force pass breaks (anchor_breaks.sql).
-- Inputs: none (the lists given).
-- Parameters:
--   $p2p_names VARCHAR[]: the send/receive names
--   $boundary_names VARCHAR[]: the embedding and sampling names
-- Output: TEMP _p2p_names, one row per send/receive name:
--   name VARCHAR: the kernel name
-- Output: TEMP _boundary_names, one row per embedding or sampling name:
--   name VARCHAR: the kernel name
CREATE OR REPLACE TEMP TABLE _p2p_names AS SELECT unnest($p2p_names)::VARCHAR AS name;
CREATE OR REPLACE TEMP TABLE _boundary_names AS SELECT unnest($boundary_names)::VARCHAR AS name;
