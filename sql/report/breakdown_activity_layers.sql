-- Report `breakdown`, --by pass and --by layer: the device activities of the selected passes, each in
-- the pass (and layer) segmentation gave it (segment_assign.sql: a kernel belongs to the unit its start
-- lies in, and keeps its whole interval). The prologue of a full window is a layer of its own (layer
-- NULL). Kinds and communication as in breakdown_activity.sql: kernels ('kernel') and communication
-- ops ('comm') count, memcpy and memset do not (they go to _bd_copy, each in the unit segmentation gave
-- it, for the report's columns of their own); is_comm is segmentation's own (_assigned.is_comm).
-- Inputs: _assigned, kernels.
-- Parameters:
--   $run_ids INTEGER[]: the runs
--   $by_layer BOOLEAN: one unit per layer; false: per pass (layer NULL)
-- Output: TEMP _bd_act, one row per counted kernel or communication op of the selected passes:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: NULL (no steps in this mode)
--   pass BIGINT: its pass
--   layer BIGINT: its layer with $by_layer (NULL: the prologue or the epilogue), else NULL
--   unit VARCHAR: with $by_layer prologue | layer | epilogue (segment_assign.sql), else NULL
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   is_comm BOOLEAN: communication (else computing)
-- Output: TEMP _bd_copy, one row per memcpy or memset activity of the selected passes:
--   run_id INTEGER: the run
--   seq BIGINT: the activity (kernels.seq)
--   step BIGINT: NULL (no steps in this mode)
--   pass BIGINT: its pass
--   layer BIGINT: its layer with $by_layer (NULL: the prologue or the epilogue), else NULL
--   unit VARCHAR: with $by_layer prologue | layer | epilogue, else NULL
--   s BIGINT: start, ns
--   e BIGINT: end, ns
--   kind VARCHAR: memcpy | memset
-- Output: TEMP _bd_no_kernels(run_id INTEGER, ops BIGINT, step_lines BIGINT): empty (breakdown_activity.sql
--   fills it by run and step)
-- Output: TEMP _bd_comm_only(run_id INTEGER, ops BIGINT): empty, as _bd_no_kernels
-- Output: TEMP _bd_uncounted, one row per run and kind of activity that does not count (memcpy, memset,
--   task), for the report's note:
--   run_id INTEGER: the run
--   kind VARCHAR: the kind
--   activities BIGINT: how many
--   dur_ns BIGINT: their time
CREATE OR REPLACE TEMP TABLE _bd_act AS
SELECT a.run_id, a.seq, NULL::BIGINT AS step, a.pass, CASE WHEN $by_layer THEN a.layer END AS layer,
    CASE WHEN $by_layer THEN a.unit END AS unit,
    a.start_ns AS s, a.end_ns AS e, a.is_comm
FROM _assigned a JOIN kernels k USING (run_id, seq)
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('kernel', 'comm');
CREATE OR REPLACE TEMP TABLE _bd_copy AS
SELECT a.run_id, a.seq, NULL::BIGINT AS step, a.pass, CASE WHEN $by_layer THEN a.layer END AS layer,
    CASE WHEN $by_layer THEN a.unit END AS unit,
    a.start_ns AS s, a.end_ns AS e, k.kind
FROM _assigned a JOIN kernels k USING (run_id, seq)
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind IN ('memcpy', 'memset');
CREATE OR REPLACE TEMP TABLE _bd_uncounted AS
SELECT k.run_id, k.kind, count(*) AS activities, sum(k.dur_ns)::BIGINT AS dur_ns
FROM _assigned a JOIN kernels k USING (run_id, seq)
WHERE k.run_id IN (SELECT unnest($run_ids)) AND k.kind NOT IN ('kernel', 'comm')
GROUP BY k.run_id, k.kind;
-- by pass and layer every unit comes from a segmented run's kernels: no run has communication ops only
CREATE OR REPLACE TEMP TABLE _bd_no_kernels AS
SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS ops, NULL::BIGINT AS step_lines WHERE false;
CREATE OR REPLACE TEMP TABLE _bd_comm_only AS SELECT NULL::INTEGER AS run_id, NULL::BIGINT AS ops WHERE false;
