-- Number one run's freshly inserted rows and mark its duplicates.
-- 1. seq = position in file order: DuckDB appends an INSERT's rows in source order (insertion order is
--    preserved), so rowid order is file order. Steps 1 and 3 are skipped when the reader numbered the rows
--    and marked the communication duplicates itself (the Ascend CSV reader, whose rows are committed chunk
--    by chunk); an exact copy among them is marked 'exact' here all the same.
-- 2. dup = 'exact' for a row identical in every source column to an earlier one (sliced op_summary files
--    concatenated twice). Only rows sharing start, stream and task id with another row can be such
--    rows, so the full comparison runs on those candidates only (an hcom op's two rows differ in stream);
--    a reader that knows which rows can be copies at all ($candidates) spares the partition of the others.
-- 3. dup = 'comm' for a communication row when an earlier counted one has the same floor(start µs) and
--    op type on the same device: each hcom op is logged on stream N/A and on a hardware stream (rows of
--    several devices in one run, as the SQLite exports can give, are told apart).
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `rows`, the table the run's rows are in:
--   kernels_raw_ascend_csv for the Ascend CSV reader, kernels_raw_full for the others.
-- Inputs: the table `rows`: the run's rows, inserted in file order in this transaction (seq still 0).
-- Parameters:
--   $run_id INTEGER: the run being ingested
--   $marked BOOLEAN: the reader set seq and the 'comm' marks itself (the Ascend CSV reader,
--     ingest_ascend_csv.sql); exact copies are still marked here, over a 'comm' mark
--   $candidates BIGINT[]: the seq of the only rows that can be exact copies, as the reader found them (the
--     Ascend CSV reader: rows whose start equals the previous row's, in a file whose starts never go back);
--     NULL: any row can
-- Output: seq and dup of the run's rows in the table `rows`. TEMP _dups is scratch, dropped at the end.
UPDATE {rows} SET seq = rowid - (SELECT min(rowid) FROM {rows} WHERE run_id = $run_id)
WHERE run_id = $run_id AND NOT $marked;
CREATE OR REPLACE TEMP TABLE _dups AS
WITH twice AS (
    SELECT seq FROM (SELECT seq, count(*) OVER (PARTITION BY start_ns, stream_id, task_id) AS n FROM {rows}
                     WHERE run_id = $run_id
                       AND ($candidates IS NULL OR seq IN (SELECT unnest($candidates::BIGINT[]))))
    WHERE n > 1
), exact AS (
    -- start and name are compared exactly, the other 14 columns through one 64-bit hash (partitioning on
    -- them all took 1 s for the 490k candidate rows of a trace with every hcom op logged twice); text_id
    -- stands for the row's 8 text columns (one id per distinct tuple within the run)
    SELECT k.seq, row_number() OVER (
        PARTITION BY k.start_ns, k.name, hash(k.dur_ns, k.op_type, k.core_type, k.device_id, k.stream_id, k.task_id,
            k.step_id, k.model_id, k.context_id, k.block_dim, k.mix_block_dim, k.wait_ns, k.text_id, k.metrics)
        ORDER BY k.seq) AS n
    FROM {rows} k SEMI JOIN twice t ON k.seq = t.seq
    WHERE k.run_id = $run_id
), comm AS (
    SELECT seq, row_number() OVER (PARTITION BY device_id, start_ns // 1000, op_type ORDER BY seq) AS n
    FROM {rows}
    WHERE run_id = $run_id AND NOT $marked AND kind = 'comm' AND seq NOT IN (SELECT seq FROM exact WHERE n > 1)
)
SELECT seq, 'exact' AS dup FROM exact WHERE n > 1
UNION ALL
SELECT seq, 'comm' FROM comm WHERE n > 1;
UPDATE {rows} k SET dup = d.dup FROM _dups d WHERE k.run_id = $run_id AND k.seq = d.seq;
DROP TABLE _dups;
