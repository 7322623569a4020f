-- Insert the rows of Ascend kernel_details.csv / op_summary CSV files of one run into kernels_raw_ascend_csv
-- (kernels_raw's columns but the GPU launch ones, which these files never fill: migrate_9_to_10.sql).
-- The rows come parsed and checked: tracedb.ingest.ascend_csv_arrow has turned the time cells into exact
-- integer ns (integer part * 1000 + the first 3 decimals, torch_npu's convert_us2ns rule) and refused the
-- files whose cells break a rule before this statement sees a row.
-- 'N/A' and empty cells are NULL (rows outside every step have an empty Step Id); Model ID / Context ID
-- 4294967295 (UINT32_MAX, msprof's "invalid") too.
-- Communication rows logged twice are marked as the rows go in (dup = 'comm': device, floor(start µs)
-- and op type of an earlier communication row of the run, the rule of ingest_finish.sql, applied to these
-- rows and the run's rows stored before them). Marking them once every chunk is committed rewrote every
-- row group at the run's commit (1.5 s, and half the file left free, for 246 k such rows among 2 M).
-- ingest_finish.sql marks exact copies afterwards ('exact' wins over 'comm': the first row of a key is
-- never an exact copy, so the marks are those of the rule applied at once).
-- The text cells (state, shapes, dtypes, formats, text extras) are in kernel_texts, once per distinct
-- tuple (ingest_ascend_csv_texts.sql); each row holds its tuple's text_id.
-- Placeholders (identifiers only, quoted by tracedb.sql.ident): `projection` gives every canonical
--   non-text column of kernels_raw_ascend_csv, NULL where the file lacks one; `metrics` lists the columns
--   that hold numbers (PMU metrics).
-- Inputs: kernels_raw_ascend_csv (the run's rows stored before these), and ascend_csv_rows, an Arrow table
--   of the next rows in file order, registered by tracedb.ingest.ascend_csv for this statement:
--   seq BIGINT (file order), start_ns / dur_ns / wait_ns BIGINT, kind VARCHAR ('comm' for a core type
--   HCCL or COMMUNICATION or a name starting with hcom_, else 'kernel'), the canonical columns the file
--   has (ids as integers, names and types as dictionary-encoded strings), metric_<i> DOUBLE per numeric
--   extra column at position i, text_id INTEGER.
-- Parameters:
--   $run_id INTEGER: the run being ingested
-- Output: rows in kernels_raw_ascend_csv, one per CSV row, seq set, dup 'comm' or NULL.
INSERT INTO kernels_raw_ascend_csv BY NAME
WITH csv AS NOT MATERIALIZED (
    SELECT seq, start_ns, dur_ns, kind,
        {projection},
        {metrics} AS metrics,
        text_id
    FROM ascend_csv_rows
), fresh AS NOT MATERIALIZED (
    SELECT $run_id AS run_id, seq, start_ns, dur_ns, name, op_type, kind, core_type, device_id, stream_id, task_id,
        step_id, nullif(model_id, 4294967295) AS model_id, nullif(context_id, 4294967295) AS context_id,
        block_dim, mix_block_dim, wait_ns, metrics, text_id
    FROM csv
), comm AS (
    -- these communication rows and the run's stored before them in the same µs
    SELECT seq, device_id, start_ns // 1000 AS us, op_type, false AS stored FROM fresh WHERE kind = 'comm'
    UNION ALL
    SELECT seq, device_id, start_ns // 1000, op_type, true
    FROM kernels_raw_ascend_csv
    WHERE run_id = $run_id AND kind = 'comm'
      AND start_ns // 1000 IN (SELECT start_ns // 1000 FROM fresh WHERE kind = 'comm')
), marks AS (
    SELECT seq FROM (
        SELECT seq, stored, row_number() OVER (PARTITION BY device_id, us, op_type ORDER BY seq) AS n FROM comm)
    WHERE n > 1 AND NOT stored
)
SELECT *, CASE WHEN seq IN (SELECT seq FROM marks) THEN 'comm' END AS dup
FROM fresh;
