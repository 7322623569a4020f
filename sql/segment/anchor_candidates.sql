-- Candidate anchors of the runs with no anchor given, laid out as segment_anchors.sql lays out a run's
-- anchors so that segment_passes.sql splits each candidate into passes exactly as a report would. Every
-- run's candidates are laid out at once: a job of 128 ranks is one statement, not 128.
-- Inputs: _stream (segment_stream.sql: the kernels of the phase being segmented), TEMP _cand_names(cand INTEGER,
--   run_id INTEGER, name VARCHAR) (tracedb.engine.segmentation.candidates): candidate sets (one attention kernel name,
--   or a family of variants of one), numbered across the runs.
-- Parameters: none.
-- Output: TEMP _anchors, one row per kernel of a candidate set:
--   run_id INTEGER: the candidate index (_cand_names.cand), in place of the run
--   seq BIGINT: the kernel (kernels.seq)
--   start_ns BIGINT: its start
--   end_ns BIGINT: its end (start_ns + dur_ns)
--   idx BIGINT: from 0 per candidate in (start_ns, seq) order
--   src_run INTEGER: the run of the kernel
CREATE OR REPLACE TEMP TABLE _anchors AS
SELECT c.cand AS run_id, k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns,
    row_number() OVER (PARTITION BY c.cand ORDER BY k.start_ns, k.seq) - 1 AS idx,
    c.run_id AS src_run
FROM _stream k JOIN _cand_names c ON k.run_id = c.run_id AND k.name = c.name;
