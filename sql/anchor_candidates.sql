-- Candidate anchors of a run with no anchor given, laid out as segment_anchors.sql lays out a run's anchors
-- so that segment_passes.sql splits each candidate into passes exactly as a report would.
-- Inputs: kernels, _cand_names(cand INTEGER, name VARCHAR): candidate sets (one attention kernel name, or a
--   family of variants of one). Parameters: $run_id.
-- Output: TEMP _anchors(run_id, seq, start_ns, end_ns, idx) where run_id holds the candidate index.
CREATE OR REPLACE TEMP TABLE _anchors AS
SELECT c.cand AS run_id, k.seq, k.start_ns, k.start_ns + k.dur_ns AS end_ns,
    row_number() OVER (PARTITION BY c.cand ORDER BY k.start_ns, k.seq) - 1 AS idx
FROM kernels k JOIN _cand_names c ON k.name = c.name
WHERE k.run_id = $run_id;
