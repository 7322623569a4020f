-- The pass split of each run's chosen anchor candidate taken as the run's own, when the anchor was proposed
-- (anchors.py): the chosen candidate's kernels are exactly the run's anchors under the proposed pattern, so
-- segment_anchors.sql, anchor_breaks.sql and segment_passes.sql would give the same rows again (0.6 s of a
-- 128-rank job's report). The caller checks that equality; this only renames the candidate index to the run.
-- Inputs: _anchors, _anchor_pass, _passes, _pass_split, _pass_groups (anchor_candidates.sql, anchor_breaks.sql
--   and segment_passes.sql over the candidates: run_id is the candidate index), TEMP _chosen(cand INTEGER,
--   run_id INTEGER) (tracedb.engine.segmentation.anchors): each run's chosen candidate.
-- Parameters: none.
-- Output: TEMP _anchors, _anchor_pass, _passes, _pass_split and _pass_groups with the columns segment_passes.sql
--   and anchor_breaks.sql document, holding the chosen candidates' rows with run_id the run's.
CREATE OR REPLACE TEMP TABLE _anchors AS
SELECT t.* REPLACE (c.run_id AS run_id) FROM _anchors t JOIN _chosen c ON t.run_id = c.cand;
CREATE OR REPLACE TEMP TABLE _anchor_pass AS
SELECT t.* REPLACE (c.run_id AS run_id) FROM _anchor_pass t JOIN _chosen c ON t.run_id = c.cand;
CREATE OR REPLACE TEMP TABLE _passes AS
SELECT t.* REPLACE (c.run_id AS run_id) FROM _passes t JOIN _chosen c ON t.run_id = c.cand;
CREATE OR REPLACE TEMP TABLE _pass_split AS
SELECT t.* REPLACE (c.run_id AS run_id) FROM _pass_split t JOIN _chosen c ON t.run_id = c.cand;
CREATE OR REPLACE TEMP TABLE _pass_groups AS
SELECT t.* REPLACE (c.run_id AS run_id) FROM _pass_groups t JOIN _chosen c ON t.run_id = c.cand;
