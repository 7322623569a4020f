-- Report critical-path: the tables a path's nodes may be given their peers' arrivals, stages and modules in,
-- empty until critical_path_peers.sql, critical_path_stages_keep.sql and critical_path_modules_keep.sql fill them.
-- Inputs: none.
-- Parameters: none.
-- Output: TEMP _cp_peers, empty:
--   id BIGINT: the node (a collective of a job's rank)
--   peer_ns BIGINT: when the last other member of its instance arrived
-- Output: TEMP _cp_stages, empty:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   stage VARCHAR: its stage in its layer
-- Output: TEMP _cp_modules, empty:
--   run_id INTEGER: the run
--   seq BIGINT: the kernel (kernels.seq)
--   module VARCHAR: the module that launched it
CREATE OR REPLACE TEMP TABLE _cp_peers (id BIGINT, peer_ns BIGINT);
CREATE OR REPLACE TEMP TABLE _cp_stages (run_id INTEGER, seq BIGINT, stage VARCHAR);
CREATE OR REPLACE TEMP TABLE _cp_modules (run_id INTEGER, seq BIGINT, module VARCHAR);
